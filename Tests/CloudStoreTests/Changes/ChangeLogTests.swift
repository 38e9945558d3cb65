import TestSupport
import Testing

@testable import CloudStore

@Suite struct ChangeLogTests {
    private func log(_ store: TemporaryStore, _ database: DatabaseID, zone: String) throws -> [ChangeEntry] {
        try store.store.environment(store.container, .development).read { reader in
            guard let stored = try reader.zone(named: zone, in: database) else { return [] }
            return try reader.changes(in: stored, after: 0, limit: 10_000)
        }
    }

    @Test func everyChangeAppendsInOrderWithTombstonesAndNoGaps() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        let a = try database.create("Note", "a")
        try database.create("Note", "b")
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.update, recordName: "a", recordChangeTag: a.changeTag, fields: ["x": .int64(1)]),
                RecordOperation(.forceDelete, recordName: "b"),
                RecordOperation(.update, recordName: "missing", recordChangeTag: "1"),
            ]))
        let entries = try log(store, .public, zone: "_defaultZone")
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries.map(\.recordName) == ["a", "b", "a", "b"])
        #expect(entries.map(\.kind) == [.created, .created, .updated, .deleted])
        #expect(entries.allSatisfy { $0.recordType == "Note" })
    }

    @Test func cascadesLogEachDeletionAndFailedBatchesLogNothing() throws {
        let store = try TemporaryStore()
        let database = try store.privateDatabase(of: "_z")
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Z")])
        _ = try database.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "p", recordType: "List"),
                    RecordOperation(
                        .create, recordName: "c", recordType: "Item",
                        fields: ["p": .reference(Reference(recordName: "p", action: .deleteSelf))]),
                ], zoneName: "Z"))
        _ = try database.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "q", recordType: "List"),
                    RecordOperation(.create, recordName: "p", recordType: "List"),
                ], zoneName: "Z"))
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "p")], zoneName: "Z"))
        let entries = try log(store, .private("_z"), zone: "Z")
        #expect(entries.map(\.sequence) == [1, 2, 3, 4])
        #expect(entries.map { "\($0.recordName):\($0.kind)" } == ["p:created", "c:created", "p:deleted", "c:deleted"])
    }

    @Test func changeTagsDifferOnEverySave() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        var record = try database.create("Note", "a")
        var tags = [record.changeTag]
        for value in 0..<20 {
            record = try #require(
                try database.modify(
                    ModifyRequest(operations: [
                        RecordOperation(.update, recordName: "a", recordChangeTag: record.changeTag, fields: ["v": .int64(Int64(value))])
                    ])
                ).first?.record)
            tags.append(record.changeTag)
        }
        #expect(Set(tags).count == tags.count)
    }

    /// Review N9: the change-feed inspector follows the rule of every other operator path: in
    /// production a user's private data is theirs, so an operator sees metadata only (issue 39:
    /// positions, times and kinds, never a record's name).
    @Test func theInspectorShowsOperatorsNoUsersProductionPrivateContents() throws {
        let store = try TemporaryStore()
        try store.importSchema("DEFINE SCHEMA\n RECORD TYPE Note (title STRING);\n")
        _ = try store.store.deploySchema(store.container, deployedBy: "test")
        try store.privateDatabase(of: "_ua", .production).create("Note", "2026-11-28 therapy session notes")
        try store.privateDatabase(of: "_ua", .development).create("Note", "a development note")
        try store.store.database(store.container, .production, .public, as: .operator()).create("Note", "a public note")
        func log(_ environment: Environment, _ database: DatabaseID, as caller: Caller = .operator()) throws -> [String] {
            try store.store.changeLog(store.container, environment, database: database, zoneName: "_defaultZone", as: caller).entries.map(
                \.recordName)
        }
        #expect(try log(.production, .private("_ua")) == [""])
        #expect(try log(.production, .shared("_ua")) == [])
        #expect(throws: CloudStoreError.accessDenied("Only operators read a zone's raw change log")) {
            try log(.production, .private("_ua"), as: .user("_ua"))
        }
        #expect(try log(.development, .private("_ua")) == ["a development note"])
        #expect(try log(.production, .public) == ["a public note"])
    }
}
