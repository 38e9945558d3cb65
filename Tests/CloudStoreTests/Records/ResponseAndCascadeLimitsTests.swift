import TestSupport
import Testing

@testable import CloudStore

/// What one request may take or give back: DELETE_SELF cascades capped at CloudKit's 750, query
/// pages bounded in bytes as well as records.
@Suite struct ResponseAndCascadeLimitsTests {
    @Test func aRecordTakesAtMost750DeleteSelfReferrers() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("List", "list")
        let reference = FieldValue.reference(Reference(recordName: "list", action: .deleteSelf))
        for batch in 0..<4 {
            let count = batch < 3 ? 200 : 150
            let results = try database.modify(
                ModifyRequest(
                    operations: (0..<count).map {
                        RecordOperation(.create, recordName: "item-\(batch)-\($0)", recordType: "Item", fields: ["list": reference])
                    }))
            #expect(results.allSatisfy { $0.record != nil })
        }
        let refused = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "one-too-many", recordType: "Item", fields: ["list": reference])
            ]))
        #expect(
            refused.first?.error
                == .badRequest(
                    "Record 'list' already has 750 records referencing it with DELETE_SELF, the most CloudKit allows"))
        // A record already holding the reference may be saved again.
        let resaved = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "item-0-0", fields: ["list": reference, "n": .int64(1)])
            ]))
        #expect(resaved.first?.record != nil)
        // Deleting the list takes all 750 with it.
        let deleted = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "list")]))
        #expect(deleted.first?.error == nil)
        #expect(try database.lookup([RecordLookup("item-3-149")]).first?.error == .notFound("Record not found"))
    }

    @Test func aCascadeOfMoreThan750IsRefusedBeforeDeletingAnything() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("List", "root")
        // 400 children of the root, and 400 grandchildren under the first child: 800 in all.
        try database.create("Item", "child-0", ["up": .reference(Reference(recordName: "root", action: .deleteSelf))])
        for batch in 0..<2 {
            _ = try database.modify(
                ModifyRequest(
                    operations: (0..<200).map {
                        RecordOperation(
                            .create, recordName: "child-\(batch)-\($0)", recordType: "Item",
                            fields: ["up": .reference(Reference(recordName: "root", action: .deleteSelf))])
                    }))
            _ = try database.modify(
                ModifyRequest(
                    operations: (0..<200).map {
                        RecordOperation(
                            .create, recordName: "grandchild-\(batch)-\($0)", recordType: "Item",
                            fields: ["up": .reference(Reference(recordName: "child-0", action: .deleteSelf))])
                    }))
        }
        let refused = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "root")]))
        #expect(
            refused.first?.error
                == .badRequest(
                    "Deleting record 'root' would delete more than 750 records referencing it with DELETE_SELF; delete some of them first"))
        #expect(try database.lookup([RecordLookup("root"), RecordLookup("grandchild-1-199")]).allSatisfy { $0.record != nil })
    }

    @Test func aQueryPageIsBoundedInBytesAndTheRestFollowsByMarker() throws {
        let store = try TemporaryStore { $0.maximumQueryPageBytes = 2_000 }
        try store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Blob ( "___recordID" REFERENCE QUERYABLE, "___createTime" TIMESTAMP SORTABLE, body STRING,
                                   GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator" );
            """)
        let database = try store.database()
        let body = String(repeating: "x", count: 600)
        _ = try database.modify(
            ModifyRequest(
                operations: (0..<10).map {
                    RecordOperation(.create, recordName: "blob-\($0)", recordType: "Blob", fields: ["body": .string(body)])
                }))
        var pages: [[String]] = []
        var marker: String?
        repeat {
            let page = try database.query(
                QueryRequest(
                    query: Query(recordType: "Blob", sorts: [QuerySort(.system(.createTime))]), continuationMarker: marker))
            pages.append(page.records.map(\.recordName))
            marker = page.continuationMarker
        } while marker != nil
        #expect(pages.map(\.count) == [3, 3, 3, 1])
        #expect(pages.flatMap { $0 } == (0..<10).map { "blob-\($0)" })
        // A record larger than the bound still comes, alone.
        let huge = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "huge", recordType: "Blob", fields: ["body": .string(String(repeating: "y", count: 5_000))])
            ]))
        #expect(huge.first?.record != nil)
        let all = try database.query(
            QueryRequest(query: Query(recordType: "Blob", sorts: [QuerySort(.system(.createTime), ascending: false)])))
        #expect(all.records.map(\.recordName) == ["huge"])
        #expect(all.continuationMarker != nil)
    }
}
