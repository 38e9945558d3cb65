import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// The writer remembers zones and each zone's last change sequence across its transactions;
/// what it remembers never outlives a rollback, another process's write or a zone's deletion.
/// (Its memory of subscriptions is tested with them, in ``SubscriptionsTests``.)
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct WriterMemoTests {
    private static func create(_ name: String, in zone: String, _ database: CloudDatabase, title: String = "t") throws -> [RecordResult] {
        try database.modify(
            ModifyRequest(
                operations: [RecordOperation(.create, recordName: name, recordType: "Note", fields: ["title": .string(title)])],
                zoneName: zone))
    }

    /// The feed of `zone` as (sequence, record name) pairs, read in a transaction of its own.
    private static func feed(of zone: String, owner: String, _ store: TemporaryStore) throws -> [String] {
        try store.store.environment(store.container, .development).read { reader in
            guard let found = try reader.zone(named: zone, in: DatabaseID(scope: .private, owner: owner)) else { return ["no zone"] }
            return try reader.changes(in: found, after: 0, limit: 100).map { "\($0.sequence) \($0.recordName)" }
        }
    }

    @Test func writesOfAnotherProcessAndAZoneMadeAgainThereReachTheWriter() throws {
        let store = try TemporaryStore()
        let (alice, database) = try DatabaseChangesTests.aliceWithZones(store)
        // A second store stands for another process (the command line) on the same directory.
        let other = try store.anotherProcess()
        let elsewhere = try other.database(store.container, .development, .private, as: database.caller)

        #expect(try Self.create("a1", in: "Work", database).first?.record != nil)
        #expect(try Self.create("b1", in: "Work", elsewhere).first?.record != nil)
        #expect(try Self.create("a2", in: "Work", database).first?.record != nil)
        #expect(try Self.feed(of: "Work", owner: alice, store) == ["1 a1", "2 b1", "3 a2"])

        // Deleted and made again by the other process: the writer writes to the new zone.
        _ = try elsewhere.modifyZones([ZoneOperation(.delete, zoneName: "Work")])
        _ = try elsewhere.modifyZones([ZoneOperation(.create, zoneName: "Work")])
        #expect(try Self.create("a3", in: "Work", database).first?.record != nil)
        #expect(try Self.feed(of: "Work", owner: alice, store) == ["1 a3"])
        #expect(try elsewhere.lookup([RecordLookup("a3")], zoneName: "Work").first?.record?.recordName == "a3")
        #expect(try database.lookup([RecordLookup("a1")], zoneName: "Work").first?.record == nil)
    }

    @Test func whatAWriteThatRolledBackFoundOrMadeIsNotRemembered() throws {
        let store = try TemporaryStore()
        let (alice, database) = try DatabaseChangesTests.aliceWithZones(store)
        #expect(try Self.create("w1", in: "Work", database).first?.record != nil)
        try store.store.limitStorage(of: store.container, headroom: 20_000)
        let huge = String(repeating: "x", count: 30_000)

        // Refused past the limit after its records and changes were written: the write rolls back.
        #expect(throws: CloudStoreError.self) { try Self.create("w2", in: "Work", database, title: huge) }
        #expect(try Self.create("w3", in: "Work", database).first?.record != nil)
        #expect(try Self.feed(of: "Work", owner: alice, store) == ["1 w1", "2 w3"], "no sequence taken by the rolled-back write")

        // The first write to the default zone makes it; rolled back, it was never made.
        #expect(throws: CloudStoreError.self) { try Self.create("d1", in: "_defaultZone", database, title: huge) }
        #expect(try Self.feed(of: "_defaultZone", owner: alice, store) == ["no zone"])
        #expect(try Self.create("d2", in: "_defaultZone", database).first?.record != nil)
        #expect(try Self.feed(of: "_defaultZone", owner: alice, store) == ["1 d2"])
        #expect(try database.lookup([RecordLookup("d2")]).first?.record?.recordName == "d2")
    }

    /// With the writer's memory in use, another process's write and a rolled-back write leave
    /// the database's zone feed in order, each zone once.
    @Test func theZoneLogStaysInOrderAcrossAnotherProcessAndARollback() throws {
        let store = try TemporaryStore()
        let (_, database) = try DatabaseChangesTests.aliceWithZones(store)
        let other = try store.anotherProcess()
        let elsewhere = try other.database(store.container, .development, .private, as: database.caller)
        func feed(after token: String?) throws -> [String] {
            try database.databaseChanges(syncToken: token).zones.map(DatabaseChangesTests.describe)
        }

        _ = try Self.create("w1", in: "Work", database)
        _ = try Self.create("h1", in: "Home", database)
        let first = try database.databaseChanges(syncToken: nil).syncToken
        // The other process moves Home; the writer's next write must come after it.
        _ = try Self.create("h2", in: "Home", elsewhere)
        _ = try Self.create("t1", in: "Trips", database)
        _ = try Self.create("w2", in: "Work", database)
        #expect(try feed(after: first) == ["Home", "Trips", "Work"])
        let second = try database.databaseChanges(syncToken: nil).syncToken

        try store.store.limitStorage(of: store.container, headroom: 20_000)
        #expect(throws: CloudStoreError.self) { try Self.create("t2", in: "Trips", database, title: String(repeating: "x", count: 30_000)) }
        _ = try Self.create("h3", in: "Home", database)
        _ = try Self.create("h4", in: "Home", database)
        #expect(try feed(after: second) == ["Home"], "the rolled-back write moved nothing")
        _ = try Self.create("t3", in: "Trips", elsewhere)
        _ = try Self.create("w3", in: "Work", database)
        #expect(try feed(after: second) == ["Home", "Trips", "Work"])
        #expect(try feed(after: nil) == ["Home", "Trips", "Work"])

        let sequences = try store.store.environment(store.container, .development).read { reader in
            try reader.zoneLog(in: database.database, after: 0, limit: 10).map(\.sequence)
        }
        #expect(sequences.count == 3 && sequences == sequences.sorted() && Set(sequences).count == 3)
    }

    @Test func aZoneDeletedAndMadeAgainByTheWriterStartsItsFeedAfresh() throws {
        let store = try TemporaryStore()
        let (alice, database) = try DatabaseChangesTests.aliceWithZones(store)
        for name in ["t1", "t2", "t3"] { _ = try Self.create(name, in: "Trips", database) }
        _ = try database.modifyZones([ZoneOperation(.delete, zoneName: "Trips")])
        #expect(
            try Self.create("t4", in: "Trips", database).first?.error == .zoneNotFound(ZoneID(zoneName: "Trips", ownerRecordName: alice)))
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Trips")])
        #expect(try Self.create("t5", in: "Trips", database).first?.record != nil)
        #expect(try Self.feed(of: "Trips", owner: alice, store) == ["1 t5"])
    }
}
