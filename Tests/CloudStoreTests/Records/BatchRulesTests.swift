import TestSupport
import Testing

@testable import CloudStore

@Suite struct BatchRulesTests {
    @Test func anAtomicBatchInACustomZoneFailsWholeAndWritesNothing() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_alice")
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Notes")])
        let existing = try #require(
            try database.modify(
                ModifyRequest(
                    operations: [RecordOperation(.create, recordName: "keep", recordType: "Note", fields: ["v": .int64(1)])],
                    zoneName: "Notes")
            ).first?.record)
        let before = try database.zones()

        let results = try database.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "new1", recordType: "Note", fields: ["v": .int64(2)]),
                    RecordOperation(.create, recordName: "new2", recordType: "Task", fields: ["w": .string("a")]),
                    RecordOperation(.update, recordName: "keep", recordChangeTag: "stale", fields: ["v": .int64(3)]),
                    RecordOperation(.create, recordName: "new3", recordType: "Note"),
                ], zoneName: "Notes", atomic: true))

        #expect(results[2].error == .conflict("client oplock error updating record", serverRecord: existing))
        for index in [0, 1, 3] {
            guard case .atomicFailure = results[index].error else {
                Issue.record("expected ATOMIC_ERROR at \(index), got \(results[index])")
                continue
            }
        }
        let lookups = try database.lookup(["new1", "new2", "new3", "keep"].map { RecordLookup($0) }, zoneName: "Notes")
        #expect(lookups.prefix(3).allSatisfy { $0.error == .notFound("Record not found") })
        #expect(lookups[3].record == existing)
        // Neither the schema change of the failed batch nor its change log entries remain.
        #expect(try store.store.schema(store.container, .development).recordType("Task") == nil)
        #expect(try database.zones() == before)
    }

    @Test func theDefaultZoneIsNeverAtomic() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let results = try database.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "ok", recordType: "Note"),
                    RecordOperation(.update, recordName: "missing", recordChangeTag: "x"),
                    RecordOperation(.create, recordName: "ok2", recordType: "Note"),
                ], atomic: true))
        #expect(results[0].record != nil)
        #expect(results[1].error == .notFound("Record not found"))
        #expect(results[2].record != nil)
    }

    @Test func nonAtomicBatchesInCustomZonesApplyWhatSucceeds() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_bob")
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
        let results = try database.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "a", recordType: "Note"),
                    RecordOperation(.delete, recordName: "nope", recordChangeTag: "1"),
                ], zoneName: "Z", atomic: false))
        #expect(results[0].record != nil)
        #expect(results[1].error == .notFound("Record not found"))
    }

    @Test func atMost200OperationsAndOnePerRecord() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let tooMany = (0...200).map { RecordOperation(.create, recordName: "r\($0)", recordType: "Note") }
        #expect(throws: CloudStoreError.badRequest("A request may hold at most 200 operations; this one has 201")) {
            try database.modify(ModifyRequest(operations: tooMany))
        }
        let exactly200 = try database.modify(ModifyRequest(operations: Array(tooMany.prefix(200))))
        #expect(exactly200.allSatisfy { $0.record != nil })

        #expect(
            throws: CloudStoreError.badRequest(
                "Record 'x' appears in more than one operation; a request may hold one operation per record")
        ) {
            try database.modify(
                ModifyRequest(operations: [
                    RecordOperation(.create, recordName: "x", recordType: "Note"),
                    RecordOperation(.forceUpdate, recordName: "x", recordType: "Note"),
                ]))
        }
    }

    @Test func aRecordOverOneMegabyteIsRefusedAndOneJustUnderIsKept() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let overhead = RecordSize.of(
            Record(
                recordName: "big", recordType: "Blob", zoneID: ZoneID.defaultZone(of: .public), fields: ["data": .bytes([])],
                changeTag: "", created: RecordStamp(timestamp: 0, userRecordName: "", deviceID: ""),
                modified: RecordStamp(timestamp: 0, userRecordName: "", deviceID: "")))
        let fits = [UInt8](repeating: 7, count: RecordSize.limit - overhead)
        let results = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "big", recordType: "Blob", fields: ["data": .bytes(fits)]),
                RecordOperation(.create, recordName: "bigger", recordType: "Blob", fields: ["data": .bytes(fits + [1, 2])]),
            ]))
        #expect(results[0].record?.fields["data"] == .bytes(fits))
        guard case .quotaExceeded(let reason) = results[1].error else {
            Issue.record("expected QUOTA_EXCEEDED, got \(results[1])")
            return
        }
        #expect(reason.contains("1 MB"))
        #expect(try database.lookup([RecordLookup("bigger")]).first?.error == .notFound("Record not found"))
    }

    @Test func customZonesAreMissingUntilCreated() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_carol")
        let results = try database.modify(
            ModifyRequest(
                operations: [RecordOperation(.create, recordName: "a", recordType: "Note")], zoneName: "Nope"))
        #expect(results.first?.error == .zoneNotFound(ZoneID(zoneName: "Nope", ownerRecordName: "_carol")))
    }
}
