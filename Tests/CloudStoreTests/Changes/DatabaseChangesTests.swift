import TestSupport
import Testing

@testable import CloudStore

/// A database's zone feed (`changes/database`), and the tombstone retention: zones created,
/// changed and deleted each once, paged with tokens; tokens refused with their reasons; a token
/// older than a forgotten tombstone answered CHANGE_TOKEN_EXPIRED, never with a silent gap.
@Suite struct DatabaseChangesTests {
    /// A zone feed entry as a test reads it: the zone's name, or "deleted" and the name.
    static func describe(_ result: ZoneResult) -> String {
        switch result {
        case .zone(let zone): zone.zoneID.zoneName
        case .deleted(let zoneID): "deleted " + zoneID.zoneName
        case .failure(let zoneID, let error): "failed \(zoneID.zoneName): \(error)"
        }
    }

    static func aliceWithZones(_ store: TemporaryStore) throws -> (String, CloudDatabase) {
        try store.importSchema(ZoneChangesTests.schema)
        let alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
        let database = try store.privateDatabase(of: alice)
        _ = try database.modifyZones(["Work", "Home", "Trips"].map { ZoneOperation(.create, zoneName: $0) })
        return (alice, database)
    }

    @Test func theFeedListsZonesCreatedChangedAndDeletedEachOnceInTheOrderOfTheirLatestChange() throws {
        let store = try TemporaryStore()
        let (_, database) = try Self.aliceWithZones(store)
        let first = try database.databaseChanges(syncToken: nil)
        #expect(first.zones.map(Self.describe) == ["Work", "Home", "Trips"] && !first.moreComing)
        #expect(try database.databaseChanges(syncToken: first.syncToken).zones.isEmpty)

        _ = try database.modifyZones([ZoneOperation(.delete, zoneName: "Home")])
        try database.create("Note", "a")  // the default zone changes: it is listed too
        let work = try store.store.database(store.container, .development, .private, as: database.caller)
        let inWork = ModifyRequest(
            operations: [RecordOperation(.create, recordName: "w", recordType: "Note", fields: [:])], zoneName: "Work")
        _ = try work.modify(inWork)
        _ = try work.modify(
            ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "w", recordType: "Note", fields: [:])], zoneName: "Work"))
        let next = try database.databaseChanges(syncToken: first.syncToken)
        #expect(next.zones.map(Self.describe) == ["deleted Home", "_defaultZone", "Work"])
        // Each zone's entry carries its current token: following it yields nothing new.
        guard case .zone(let workZone)? = next.zones.last else { throw TestFailure("Work is listed") }
        #expect(try database.zoneChanges(zoneName: "Work", syncToken: workZone.syncToken).records.isEmpty)

        // A first fetch lists deleted zones too (nobody can tell a first page from a later one); pages of one follow each other.
        var token: String?
        var seen: [String] = []
        repeat {
            let page = try database.databaseChanges(syncToken: token, resultsLimit: 1)
            seen += page.zones.map(Self.describe)
            token = page.syncToken
            if !page.moreComing { break }
        } while true
        #expect(seen == ["Trips", "deleted Home", "_defaultZone", "Work"])

        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "Home")])
        #expect(
            try database.databaseChanges(syncToken: next.syncToken).zones.map(Self.describe) == ["Home"],
            "a zone created again is listed as it is now")
    }

    @Test func tokensThatCannotBeFollowedAreRefusedWithTheirReasons() throws {
        let store = try TemporaryStore()
        let (alice, database) = try Self.aliceWithZones(store)
        let token = try database.databaseChanges(syncToken: nil).syncToken
        #expect(throws: CloudStoreError.badRequest("The sync token is not valid")) {
            try database.databaseChanges(syncToken: String(token.dropLast(3)) + "AAA")
        }
        let zoneToken = try database.zoneChanges(zoneName: "Work", syncToken: nil).syncToken
        #expect(throws: CloudStoreError.badRequest("The sync token is not valid"), "a zone's token is not a database's") {
            try database.databaseChanges(syncToken: zoneToken)
        }
        #expect(throws: CloudStoreError.badRequest("The sync token is not valid"), "nor the other way round") {
            try database.zoneChanges(zoneName: "Work", syncToken: token)
        }
        let bob = try store.store.addUser(store.container, name: "bob", password: "a long passphrase").userRecordName
        #expect(throws: CloudStoreError.badRequest("The sync token belongs to another database")) {
            try store.privateDatabase(of: bob).databaseChanges(syncToken: token)
        }
        #expect(throws: CloudStoreError.badRequest("The sync token belongs to another database")) {
            try store.database(as: .user(alice)).databaseChanges(syncToken: token)
        }
        #expect(throws: CloudStoreError.accessDenied("The private database belongs to another user")) {
            try store.store.database(store.container, .development, database: DatabaseID(scope: .private, owner: alice), as: .user(bob))
        }
        try store.store.resetDevelopment(store.container)
        #expect(throws: CloudStoreError.changeTokenExpired(CloudDatabase.resetTokenReason)) {
            try store.privateDatabase(of: alice).databaseChanges(syncToken: token)
        }
        #expect(try store.privateDatabase(of: alice).databaseChanges(syncToken: nil).zones.isEmpty, "a reset leaves no zone log")
    }

    @Test func tokensFromBeforeForgottenTombstonesExpireAndLaterOnesStillWork() throws {
        let day: Int64 = 24 * 60 * 60 * 1000
        let store = try TemporaryStore { $0.tombstoneRetention = 30 * day }
        let (_, database) = try Self.aliceWithZones(store)
        let inWork = { (kind: RecordOperation.Kind, name: String) in
            ModifyRequest(operations: [RecordOperation(kind, recordName: name, recordType: "Note", fields: [:])], zoneName: "Work")
        }
        _ = try database.modify(inWork(.create, "kept"))
        _ = try database.modify(inWork(.create, "gone"))
        let beforeDeletion = try database.zoneChanges(zoneName: "Work", syncToken: nil).syncToken
        let databaseBefore = try database.databaseChanges(syncToken: nil).syncToken
        _ = try database.modify(inWork(.forceDelete, "gone"))
        _ = try database.modifyZones([ZoneOperation(.delete, zoneName: "Trips")])
        let afterDeletion = try database.zoneChanges(zoneName: "Work", syncToken: nil).syncToken
        let databaseAfter = try database.databaseChanges(syncToken: databaseBefore).syncToken

        #expect(try store.store.forgetExpiredTombstones() == 0, "nothing is forgotten within the retention")
        #expect(
            try database.zoneChanges(zoneName: "Work", syncToken: beforeDeletion).records.map(ZoneChangesTests.describe) == ["deleted gone"]
        )
        store.clock.advance(by: 31 * day)
        #expect(try store.store.forgetExpiredTombstones() == 2, "the record's tombstone and the zone's")

        #expect(throws: CloudStoreError.changeTokenExpired(CloudDatabase.retentionTokenReason)) {
            try database.zoneChanges(zoneName: "Work", syncToken: beforeDeletion)
        }
        #expect(throws: CloudStoreError.changeTokenExpired(CloudDatabase.retentionTokenReason)) {
            try database.databaseChanges(syncToken: databaseBefore)
        }
        #expect(
            try database.zoneChanges(zoneName: "Work", syncToken: afterDeletion).records.isEmpty, "a token past the tombstone still works")
        #expect(try database.databaseChanges(syncToken: databaseAfter).zones.isEmpty)
        let fresh = try database.zoneChanges(zoneName: "Work", syncToken: nil)
        #expect(fresh.records.map(ZoneChangesTests.describe) == ["kept"], "fetching everything again gives the zone as it is")

        // Positions are never given twice: changes after the forgotten tombstones reach the later tokens.
        _ = try database.modify(inWork(.create, "later"))
        _ = try database.modifyZones([ZoneOperation(.create, zoneName: "New")])
        #expect(try database.zoneChanges(zoneName: "Work", syncToken: afterDeletion).records.map(ZoneChangesTests.describe) == ["later"])
        #expect(try database.databaseChanges(syncToken: databaseAfter).zones.map(Self.describe) == ["Work", "New"])
    }
}
