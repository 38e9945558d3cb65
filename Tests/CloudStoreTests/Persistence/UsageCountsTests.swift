import TestSupport
import Testing

@testable import CloudStore

/// The counts every write keeps equal what the tables hold, through creates, updates, deletes,
/// failed atomic batches and deleted zones.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct UsageCountsTests {
    func counted(_ store: TemporaryStore) throws -> (records: Int64, bytes: Int64) {
        let usage = try #require(try store.store.usage(of: store.container)[.development])
        return (usage.records, usage.recordBytes)
    }

    func actual(_ store: TemporaryStore) throws -> (records: Int64, bytes: Int64) {
        let raw = try RawSQLite(path: "\(store.directory)/containers/\(store.container)/development.sqlite")
        return (try raw.integer("SELECT count(*) FROM records"), try raw.integer("SELECT coalesce(sum(size), 0) FROM records"))
    }

    @Test func countsFollowEveryKindOfWrite() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        for index in 0..<5 { try database.create("Note", "n\(index)", ["t": .string(String(repeating: "x", count: index * 10))]) }
        try database.create("Folder", "f", ["name": .string("inbox")])
        #expect(try counted(store) == actual(store))
        #expect(try counted(store).records == 6)
        #expect(try database.recordCounts() == ["Note": 5, "Folder": 1])

        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(.forceUpdate, recordName: "n1", fields: ["t": .string(String(repeating: "y", count: 500))])
            ]))
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n2")]))
        #expect(try counted(store) == actual(store))
        #expect(try database.recordCounts() == ["Note": 4, "Folder": 1])

        // A private user's custom zone, an atomic batch that fails, and the zone's deletion.
        let alice = try store.privateDatabase(of: "_alice")
        _ = try alice.modifyZones([ZoneOperation(.create, zoneName: "Work")])
        let failed = try alice.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "a", recordType: "Task"),
                    RecordOperation(.update, recordName: "missing", recordChangeTag: "x"),
                ], zoneName: "Work"))
        #expect(failed.allSatisfy { $0.error != nil })
        #expect(try counted(store) == actual(store))
        try alice.create("Task", "t1")
        _ = try alice.modify(
            ModifyRequest(operations: (0..<3).map { RecordOperation(.create, recordName: "w\($0)", recordType: "Task") }, zoneName: "Work"))
        #expect(try counted(store) == actual(store))
        #expect(try alice.recordCounts(zoneName: "Work") == ["Task": 3])
        let zones = try store.store.zoneUsage(store.container, .development)
        #expect(zones.first { $0.zoneID.zoneName == "Work" }?.records == 3)
        _ = try alice.modifyZones([ZoneOperation(.delete, zoneName: "Work")])
        #expect(try counted(store) == actual(store))
        #expect(try alice.recordCounts() == ["Task": 1])
    }
}
