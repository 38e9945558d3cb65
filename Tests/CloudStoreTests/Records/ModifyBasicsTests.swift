import TestSupport
import Testing

@testable import CloudStore

@Suite struct ModifyBasicsTests {
    @Test func createThenLookupReturnsTheRecordWithSystemFields() throws {
        let store = try TemporaryStore()
        let database = try store.database(as: .user("_alice"))
        let created = try database.create("Note", "n1", ["title": .string("Hello"), "count": .int64(3)])
        #expect(created.recordName == "n1")
        #expect(created.recordType == "Note")
        #expect(created.zoneID == ZoneID(zoneName: "_defaultZone", ownerRecordName: "_defaultOwner"))
        #expect(created.created.userRecordName == "_alice")
        #expect(created.created == created.modified)
        #expect(!created.changeTag.isEmpty)

        let found = try database.lookup([RecordLookup("n1"), RecordLookup("missing")])
        #expect(found[0].record == created)
        #expect(found[1] == .failure(recordName: "missing", error: .notFound("Record not found")))
    }

    @Test func createWithoutNameGetsAUUID() throws {
        let store = try TemporaryStore()
        let record = try store.database().create("Note", nil, ["title": .string("x")])
        #expect(record.recordName.count == 36)
        #expect(record.recordName == record.recordName.lowercased())
    }

    @Test func updateChecksTheChangeTagAndReturnsTheServerRecordOnConflict() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let created = try database.create("Note", "n1", ["title": .string("v1"), "count": .int64(1)])

        let updated = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.update, recordName: "n1", recordChangeTag: created.changeTag, fields: ["title": .string("v2")])
            ]))
        let record = try #require(updated.first?.record)
        #expect(record.fields == ["title": .string("v2"), "count": .int64(1)])
        #expect(record.changeTag != created.changeTag)
        #expect(record.created == created.created)
        #expect(record.modified.timestamp > created.modified.timestamp)

        let stale = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.update, recordName: "n1", recordChangeTag: created.changeTag, fields: ["title": .string("v3")])
            ]))
        #expect(stale.first?.error == .conflict("client oplock error updating record", serverRecord: record))
        #expect(try database.lookup([RecordLookup("n1")]).first?.record == record)
    }

    @Test func replaceClearsFieldsNotGivenAndUpdateClearsNamedFields() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let created = try database.create("Note", "n1", ["a": .string("a"), "b": .int64(2)])
        let replaced = try #require(
            try database.modify(
                ModifyRequest(operations: [
                    RecordOperation(.replace, recordName: "n1", recordChangeTag: created.changeTag, fields: ["b": .int64(5)])
                ])
            ).first?.record)
        #expect(replaced.fields == ["b": .int64(5)])

        let cleared = try #require(
            try database.modify(
                ModifyRequest(operations: [
                    RecordOperation(
                        .update, recordName: "n1", recordChangeTag: replaced.changeTag, fields: ["a": .string("z")], clearedFields: ["b"])
                ])
            ).first?.record)
        #expect(cleared.fields == ["a": .string("z")])
    }

    @Test func forceVariantsIgnoreTagsAndCreateWhatIsMissing() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let results = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "a", recordType: "Note", fields: ["x": .int64(1)]),
                RecordOperation(.forceReplace, recordName: "b", recordType: "Note", fields: ["x": .int64(2)]),
            ]))
        #expect(results.map { $0.record?.fields } == [["x": .int64(1)], ["x": .int64(2)]])

        let again = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "a", recordChangeTag: "stale", fields: ["y": .int64(9)]),
                RecordOperation(.forceReplace, recordName: "b", recordChangeTag: "stale", fields: ["y": .int64(8)]),
            ]))
        #expect(again.map { $0.record?.fields } == [["x": .int64(1), "y": .int64(9)], ["y": .int64(8)]])

        let deleted = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceDelete, recordName: "a"),
                RecordOperation(.forceDelete, recordName: "nope"),
            ]))
        #expect(deleted[0] == .deleted(recordName: "a", zoneID: ZoneID.defaultZone(of: .public)))
        #expect(deleted[1].error == .notFound("Record not found"))
    }

    @Test func deleteNeedsTheCurrentTag() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let created = try database.create("Note", "n1")
        let stale = try database.modify(ModifyRequest(operations: [RecordOperation(.delete, recordName: "n1", recordChangeTag: "zz")]))
        #expect(stale.first?.error == .conflict("client oplock error updating record", serverRecord: created))
        let deleted = try database.modify(
            ModifyRequest(operations: [RecordOperation(.delete, recordName: "n1", recordChangeTag: created.changeTag)]))
        #expect(deleted.first == .deleted(recordName: "n1", zoneID: created.zoneID))
        #expect(try database.lookup([RecordLookup("n1")]).first?.error == .notFound("Record not found"))
    }

    @Test func createOfAnExistingRecordConflictsWithTheServerRecord() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let created = try database.create("Note", "n1", ["title": .string("first")])
        let again = try database.modify(ModifyRequest(operations: [RecordOperation(.create, recordName: "n1", recordType: "Note")]))
        #expect(again.first?.error == .conflict("record to insert already exists", serverRecord: created))
    }

    @Test func desiredKeysTrimTheReturnedFields() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let result = try database.modify(
            ModifyRequest(
                operations: [RecordOperation(.create, recordName: "n", recordType: "Note", fields: ["a": .int64(1), "b": .int64(2)])],
                desiredKeys: []))
        #expect(result.first?.record?.fields == [:])
        #expect(try database.lookup([RecordLookup("n", desiredKeys: ["b"])]).first?.record?.fields == ["b": .int64(2)])
    }
}
