import TestSupport
import Testing

@testable import CloudStore

/// The operator's listing of a zone's records straight from storage, which needs no index, and
/// the records found referring to one record.
@Suite struct RecordBrowsingTests {
    /// A type made just in time has no index, so a query of it fails; the listing pages through
    /// it by record name all the same.
    @Test func aJustInTimeTypeIsListedWithoutAnyIndex() throws {
        let temporary = try TemporaryStore()
        let database = try temporary.database()
        let names = (0..<5).map { "photo-\($0)" }
        _ = try database.modify(
            ModifyRequest(
                operations: names.reversed().map { RecordOperation(.create, recordName: $0, recordType: "Photo", fields: ["n": .int64(1)]) }
                    + [RecordOperation(.create, recordName: "note-0", recordType: "Note", fields: ["title": .string("x")])]))
        #expect(throws: CloudStoreError.self) { try database.query(QueryRequest(query: Query(recordType: "Photo"))) }

        let first = try database.listRecords(zoneName: ZoneID.defaultZoneName, recordType: "Photo", limit: 2)
        #expect(first.records.map(\.recordName) == ["photo-0", "photo-1"])
        #expect(first.continuation == "photo-1")
        let second = try database.listRecords(zoneName: ZoneID.defaultZoneName, recordType: "Photo", after: first.continuation, limit: 2)
        #expect(second.records.map(\.recordName) == ["photo-2", "photo-3"])
        let last = try database.listRecords(zoneName: ZoneID.defaultZoneName, recordType: "Photo", after: second.continuation, limit: 2)
        #expect(last.records.map(\.recordName) == ["photo-4"])
        #expect(last.continuation == nil)
        // Every type when none is named; nothing of a type the schema does not know.
        #expect(try database.listRecords(zoneName: ZoneID.defaultZoneName, limit: 10).records.count == 6)
        #expect(try database.listRecords(zoneName: ZoneID.defaultZoneName, recordType: "Nope", limit: 10).records.isEmpty)
        #expect(throws: CloudStoreError.self) { try database.listRecords(zoneName: "NoSuchZone", limit: 10) }
    }

    /// The listing is the operator's: an app's user is refused, even in their own database.
    @Test func onlyAnOperatorMayListWithoutAQuery() throws {
        let temporary = try TemporaryStore()
        let user = try temporary.privateDatabase(of: "_alice")
        #expect(throws: CloudStoreError.accessDenied("Only an operator may list a zone's records without a query")) {
            try user.listRecords(zoneName: ZoneID.defaultZoneName, limit: 10)
        }
        #expect(throws: CloudStoreError.accessDenied("Only an operator may list the records referring to a record")) {
            try user.referrers(of: "x", zoneName: ZoneID.defaultZoneName)
        }
    }

    /// References of every action count, list elements too, and children naming it as parent.
    @Test func referrersAreFoundWhateverTheirAction() throws {
        let temporary = try TemporaryStore()
        let database = try temporary.database()
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "note-0", recordType: "Note", fields: ["title": .string("x")]),
                RecordOperation(
                    .create, recordName: "photo-0", recordType: "Photo", fields: ["note": .reference(Reference(recordName: "note-0"))]),
                RecordOperation(
                    .create, recordName: "comment-1", recordType: "Comment",
                    fields: ["about": .list(.reference, [.reference(Reference(recordName: "note-0", action: .deleteSelf))])]),
                RecordOperation(
                    .create, recordName: "other", recordType: "Photo", fields: ["note": .reference(Reference(recordName: "x"))]),
            ]))
        var child = RecordOperation(.create, recordName: "stop-0", recordType: "Stop", fields: [:])
        child.parent = "note-0"
        _ = try database.modify(ModifyRequest(operations: [child]))
        let found = try database.referrers(of: "note-0", zoneName: ZoneID.defaultZoneName)
        #expect(found.complete)
        #expect(
            found.referrers == [
                RecordReferrer(recordName: "comment-1", recordType: "Comment", field: "about"),
                RecordReferrer(recordName: "photo-0", recordType: "Photo", field: "note"),
                RecordReferrer(recordName: "stop-0", recordType: "Stop", field: nil),
            ])
    }
}
