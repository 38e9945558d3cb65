import TestSupport
import Testing

@testable import CloudStore

/// The change-feed inspector: the log newest first and paged both ways, searched by record
/// name, who made each change and through which credential, a held token decoded, the next page
/// simulated as a chosen reader, and metadata only in a user's database in production.
@Suite struct SyncInspectionTests {
    private func page(_ store: TemporaryStore, _ range: ChangeLogRange, database: DatabaseID = .public, as caller: Caller = .operator())
        throws -> ChangeLogPage
    {
        try store.store.changeLog(store.container, .development, database: database, zoneName: "_defaultZone", range, as: caller)
    }

    @Test func theLogIsNewestFirstAndPagedBothWays() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        for index in 1...120 { try database.create("Note", "note-\(index)") }

        let newest = try page(store, ChangeLogRange())
        #expect(newest.entries.map(\.sequence) == Array((71...120).reversed()))
        #expect(newest.entries.first?.recordName == "note-120")
        #expect(newest.hasOlder && !newest.hasNewer)
        #expect(newest.lastSequence == 120)

        let older = try page(store, ChangeLogRange(before: 71))
        #expect(older.entries.map(\.sequence) == Array((21...70).reversed()))
        #expect(older.hasOlder && older.hasNewer)

        let oldest = try page(store, ChangeLogRange(before: 21))
        #expect(oldest.entries.map(\.sequence) == Array((1...20).reversed()))
        #expect(!oldest.hasOlder && oldest.hasNewer)

        // Back towards the newest: the oldest entries after a position, still listed newest first.
        let newer = try page(store, ChangeLogRange(after: 20))
        #expect(newer.entries.map(\.sequence) == Array((21...70).reversed()))
        #expect(newer.hasOlder && newer.hasNewer)
    }

    @Test func theLogIsSearchedByTheBeginningOfARecordName() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        for index in 1...30 { try database.create("Note", "note-\(index)") }
        try database.create("Photo", "photo-1")
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "note-3")]))

        let exact = try page(store, ChangeLogRange(recordNamePrefix: "note-3"))
        // note-3 (created, deleted) and note-30: the prefix keeps every name it begins.
        #expect(exact.entries.map(\.recordName) == ["note-3", "note-30", "note-3"])
        #expect(exact.entries.map(\.kind) == ["deleted", "created", "created"])
        #expect(!exact.hasOlder && !exact.hasNewer)

        let paged = try page(store, ChangeLogRange(recordNamePrefix: "note-", limit: 10))
        #expect(paged.entries.count == 10 && paged.entries.first?.kind == "deleted")
        #expect(paged.hasOlder && !paged.hasNewer)
        #expect(try page(store, ChangeLogRange(recordNamePrefix: "nothing")).entries.isEmpty)
    }

    /// A name searched for beyond the entries next to where the page starts is found by name,
    /// in either direction, and a common beginning still pages newest first.
    @Test func aSearchReachesPastTheEntriesNearItsStart() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "needle")
        let count = Int(CloudStore.changeLogSearchWindow) + 100
        for start in stride(from: 0, to: count, by: 200) {
            _ = try database.modify(
                ModifyRequest(
                    operations: (start..<min(start + 200, count)).map {
                        RecordOperation(.create, recordName: "hay-\($0)", recordType: "Note")
                    }))
        }
        try database.create("Note", "needle-2")
        let last = Int64(count + 2)

        let newest = try page(store, ChangeLogRange(recordNamePrefix: "needle"))
        #expect(newest.entries.map(\.recordName) == ["needle-2", "needle"])
        #expect(newest.entries.map(\.sequence) == [last, 1])
        #expect(!newest.hasOlder && !newest.hasNewer)

        let forward = try page(store, ChangeLogRange(after: 1, recordNamePrefix: "needle"))
        #expect(forward.entries.map(\.sequence) == [last])
        #expect(forward.hasOlder && !forward.hasNewer)

        let common = try page(store, ChangeLogRange(recordNamePrefix: "hay-"))
        #expect(common.entries.count == 50 && common.entries.first?.recordName == "hay-\(count - 1)")
        #expect(common.hasOlder && !common.hasNewer)
        // A prefix ending in the last code point has no upper bound and still matches exactly.
        #expect(try page(store, ChangeLogRange(recordNamePrefix: "needle\u{10FFFF}")).entries.isEmpty)
    }

    @Test func eachChangeNamesWhoMadeItAndTheCredentialItCameThrough() throws {
        let store = try TemporaryStore()
        try store.importSchema(ZoneChangesTests.schema)
        var alice = try store.database(.development, .public, as: .user("_alice"))
        alice.credential = .apiToken("web")
        try ZoneChangesTests.write(alice, .create, "n1", title: "first")
        var bob = try store.database(.development, .public, as: .user("_bob"))
        bob.credential = .serverKey("nightly")
        try ZoneChangesTests.write(bob, .create, "n2")
        try store.database().create("Note", "n3")

        let entries = try page(store, ChangeLogRange()).entries
        #expect(entries.map(\.recordName) == ["n3", "n2", "n1"])
        #expect(entries.map(\.modifier) == [Caller.operatorRecordName, "_bob", "_alice"])
        #expect(entries.map(\.credential) == [nil, .serverKey("nightly"), .apiToken("web")])
        #expect(entries[2].creator == "_alice")
    }

    @Test func aHeldTokenIsDecodedToItsZonePositionAndTime() throws {
        let store = try TemporaryStore()
        let database = try store.database()
        try database.create("Note", "a")
        let token = try database.zoneChanges(syncToken: nil).syncToken
        store.clock.advance(by: 60_000)
        try database.create("Note", "b")
        try database.create("Note", "c")

        let held = try store.store.decodeSyncToken(
            token, store.container, .development, database: .public, zoneName: "_defaultZone", as: .operator())
        #expect(held.isOfThisZone && !held.isFromAnotherIncarnation)
        #expect(held.sequence == 1)
        #expect(held.zoneID == ZoneID(zoneName: "_defaultZone", ownerRecordName: DatabaseID.public.owner))
        let first = try page(store, ChangeLogRange(before: 2)).entries.first
        #expect(held.time != nil && held.time == first?.time)

        #expect(throws: CloudStoreError.self) {
            try store.store.decodeSyncToken(
                String(token.reversed()), store.container, .development, database: .public, zoneName: "_defaultZone", as: .operator())
        }
        #expect(throws: CloudStoreError.accessDenied("Only operators read a zone's raw change log")) {
            try store.store.decodeSyncToken(
                token, store.container, .development, database: .public, zoneName: "_defaultZone", as: .user("_alice"))
        }
    }

    @Test func aTokenOfAnotherZoneIsRefusedNamingItsZone() throws {
        let store = try TemporaryStore()
        let alice = try store.privateDatabase(of: "_alice")
        _ = try alice.modifyZones([ZoneOperation(.create, zoneName: "Trips"), ZoneOperation(.create, zoneName: "Work")])
        _ = try alice.modify(ModifyRequest(operations: [RecordOperation(.create, recordName: "t1", recordType: "Note")], zoneName: "Trips"))
        let tripsToken = try alice.zoneChanges(zoneName: "Trips", syncToken: nil).syncToken
        #expect(
            throws: CloudStoreError.badRequest("The sync token belongs to zone Trips (_alice)")
        ) {
            try store.store.simulatedZoneChanges(
                store.container, .development, database: .private("_alice"), zoneName: "Work", syncToken: tripsToken,
                reader: .user("_alice"), as: .operator())
        }
    }

    @Test func theNextPageIsSimulatedAsTheChosenReaderLeavingOutWhatTheyMayNotRead() throws {
        let store = try TemporaryStore()
        try store.importSchema(ZoneChangesTests.schema)
        let alice = try store.database(.development, .public, as: .user("_alice"))
        try ZoneChangesTests.write(alice, .create, "note-1", title: "everyone reads this")
        let token = try alice.zoneChanges(syncToken: nil).syncToken
        try ZoneChangesTests.write(alice, .create, "diary-1", "Diary", title: "alice's alone")
        try ZoneChangesTests.write(alice, .create, "note-2", title: "and this")

        func next(as reader: Caller) throws -> [String] {
            try store.store.simulatedZoneChanges(
                store.container, .development, database: .public, zoneName: "_defaultZone", syncToken: token, reader: reader,
                as: .operator()
            ).changes.records.map(ZoneChangesTests.describe)
        }
        #expect(try next(as: .user("_alice")) == ["diary-1", "note-2"])
        #expect(try next(as: .user("_bob")) == ["note-2"])
        #expect(try next(as: .world) == ["note-2"])

        #expect(throws: CloudStoreError.accessDenied("Only operators see what another reader's feed would receive")) {
            try store.store.simulatedZoneChanges(
                store.container, .development, database: .public, zoneName: "_defaultZone", syncToken: token, reader: .user("_bob"),
                as: .user("_bob"))
        }
        #expect(throws: CloudStoreError.badRequest("A feed is simulated for the world or a signed-in user")) {
            try store.store.simulatedZoneChanges(
                store.container, .development, database: .public, zoneName: "_defaultZone", syncToken: token, reader: .operator(),
                as: .operator())
        }
    }

    /// In production a user's database is theirs: the inspector shows its positions, times,
    /// kinds, types and who made each change, never a record's name or values, and cannot be
    /// asked whether a name exists.
    @Test func inProductionAUsersDatabaseShowsMetadataOnly() throws {
        let store = try TemporaryStore()
        try store.importSchema("DEFINE SCHEMA\n RECORD TYPE Note (title STRING);\n")
        _ = try store.store.deploySchema(store.container, deployedBy: "test")
        let secret = "2026-11-28 therapy session notes"
        let user = try store.privateDatabase(of: "_ua", .production)
        try user.create("Note", secret, ["title": .string("private")])
        let token = try user.zoneChanges(syncToken: nil).syncToken
        try user.create("Note", secret + " 2", ["title": .string("more private")])

        let log = try store.store.changeLog(
            store.container, .production, database: .private("_ua"), zoneName: "_defaultZone", as: .operator())
        #expect(log.contentsHidden)
        #expect(log.entries.map(\.sequence) == [2, 1])
        #expect(log.entries.allSatisfy { $0.recordName.isEmpty && $0.recordType == "Note" && $0.kind == "created" })
        #expect(log.entries.map(\.modifier) == ["_ua", "_ua"])
        #expect(
            throws: CloudStoreError.accessDenied(
                "In production a user's record names are theirs alone: their private database's log cannot be searched by name")
        ) {
            try store.store.changeLog(
                store.container, .production, database: .private("_ua"), zoneName: "_defaultZone",
                ChangeLogRange(recordNamePrefix: "2026"), as: .operator())
        }

        let next = try store.store.simulatedZoneChanges(
            store.container, .production, database: .private("_ua"), zoneName: "_defaultZone", syncToken: token, reader: .user("_ua"),
            as: .operator())
        #expect(next.contentsHidden)
        #expect(next.changes.records.count == 1)
        #expect(next.changes.records.first?.record.map { $0.recordName.isEmpty && $0.fields.isEmpty && $0.recordType == "Note" } == true)
        #expect(!String(describing: next).contains("therapy") && !String(describing: log).contains("therapy"))

        // Development and the public database keep their contents.
        let development = try store.store.changeLog(
            store.container, .development, database: .private("_ua"), zoneName: "_defaultZone", as: .operator())
        #expect(!development.contentsHidden)
        // The user is still refused the raw log of their own database.
        #expect(throws: CloudStoreError.accessDenied("Only operators read a zone's raw change log")) {
            try store.store.changeLog(store.container, .production, database: .private("_ua"), zoneName: "_defaultZone", as: .user("_ua"))
        }
    }
}
