import TestSupport
import Testing

@testable import CloudStore

/// The record history and the trash: versions kept by saves and deletions, restores and
/// reverts as new changes, point-in-time restores, retention.
@Suite struct RecordHistoryTests {
    let owner = "_owner"
    var database: DatabaseID { .private(owner) }

    func notes(_ store: TemporaryStore) throws -> CloudDatabase {
        let notes = try store.privateDatabase(of: owner)
        _ = try notes.modifyZones([ZoneOperation(.create, zoneName: "Notes"), ZoneOperation(.create, zoneName: "Other")])
        return notes
    }

    func save(_ db: CloudDatabase, _ name: String, _ fields: [String: FieldValue], zone: String = "Notes") throws -> Record {
        let current = try db.lookup([RecordLookup(name)], zoneName: zone).first?.record
        let operation = RecordOperation(
            current == nil ? .create : .update, recordName: name, recordType: "Note", recordChangeTag: current?.changeTag, fields: fields)
        guard let record = try db.modify(ModifyRequest(operations: [operation], zoneName: zone)).first?.record else {
            throw TestFailure("save of \(name) failed")
        }
        return record
    }

    func delete(_ db: CloudDatabase, _ names: [String], zone: String = "Notes") throws {
        _ = try db.modify(ModifyRequest(operations: names.map { RecordOperation(.forceDelete, recordName: $0) }, zoneName: zone))
    }

    /// Every record of a zone's feed followed from `token` to its end, applied to `local`.
    private func follow(_ db: CloudDatabase, zone: String, from token: String?, into local: inout [String: Record]) throws -> String {
        var token = token
        while true {
            let page = try db.zoneChanges(zoneName: zone, syncToken: token, resultsLimit: 7)
            for result in page.records {
                switch result {
                case .record(let record): local[record.recordName] = record
                case .deleted(let name, _): local[name] = nil
                default: break
                }
            }
            token = page.syncToken
            if !page.moreComing { return page.syncToken }
        }
    }

    @Test func updatesAndDeletesKeepTheVersionsTheyReplacedWithWhoAndWhat() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        let first = try save(db, "a", ["title": .string("one"), "n": .int64(1)])
        let second = try save(db, "a", ["title": .string("two")])
        try delete(db, ["a"])

        let history = try store.store.history(ofRecord: "a", zoneName: "Notes", in: database, store.container, .development, by: .local)
        #expect(history.current == nil)
        #expect(history.entries.map(\.version.replacement) == [.deleted, .updated])
        #expect(history.entries.map(\.version.record.changeTag) == [second.changeTag, first.changeTag])
        #expect(history.entries[1].changedFields == ["title"])
        #expect(history.entries[0].changedFields == ["n", "title"])
        #expect(history.entries.allSatisfy { $0.version.modifier == owner })
        #expect(history.entries[1].version.record.fields["title"] == .string("one"))

        let usage = try store.store.usage(of: store.container, .development)
        #expect(usage.historyBytes > 0)
    }

    @Test func restoredRecordsComeBackAsNewChangesToAnOlderToken() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        for index in 0..<50 { _ = try save(db, "r\(index)", ["title": .string("note \(index)"), "n": .int64(Int64(index))]) }
        var local: [String: Record] = [:]
        let before = try follow(db, zone: "Notes", from: nil, into: &local)
        let had = local.mapValues(\.fields)
        try delete(db, (0..<50).map { "r\($0)" })

        let trash = try store.store.trash(
            store.container, .development, in: HistoryScope(database: database, zoneName: "Notes"), by: .local)
        #expect(trash.records.count == 50)
        let outcome = try store.store.restoreFromTrash(
            store.container, .development, in: HistoryScope(database: database, zoneName: "Notes"), by: .local)
        #expect(outcome.restored == 50)

        var after = local
        _ = try follow(db, zone: "Notes", from: before, into: &after)
        #expect(after.mapValues(\.fields) == had)
        #expect(try store.store.trash(store.container, .development, in: HistoryScope(database: database), by: .local).records.isEmpty)
        // The trash restore is audited once, in its transaction.
        let audit = try store.store.auditEntries(AuditFilter(action: "trash.restore"))
        #expect(audit.count == 1)
    }

    @Test func restoresOnlyTheNamedRecordsOrThoseDeletedSince() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        for name in ["a", "b", "c"] { _ = try save(db, name, ["title": .string(name)]) }
        try delete(db, ["a"])
        store.clock.advance(by: 60_000)
        let since = store.clock.tick()
        try delete(db, ["b", "c"])
        let scope = HistoryScope(database: database, zoneName: "Notes")
        let named = try store.store.restoreFromTrash(store.container, .development, in: scope, recordNames: ["c"], by: .local)
        #expect(named.restored == 1)
        let recent = try store.store.restoreFromTrash(store.container, .development, in: scope, since: since, by: .local)
        #expect(recent.restored == 1)
        #expect(try db.lookup([RecordLookup("b")], zoneName: "Notes").first?.record?.fields["title"] == .string("b"))
        #expect(try store.store.trash(store.container, .development, in: scope, by: .local).records.map(\.record.recordName) == ["a"])
    }

    @Test func aDeletedZoneComesBackWithItsRecordsAndParents() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        _ = try save(db, "parent", ["title": .string("p")], zone: "Other")
        _ = try db.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .create, recordName: "child", recordType: "Note",
                        fields: ["up": .reference(Reference(recordName: "parent", action: .deleteSelf))], parent: .some("parent"))
                ], zoneName: "Other"))
        _ = try db.modifyZones([ZoneOperation(.delete, zoneName: "Other")])
        let trash = try store.store.trash(store.container, .development, in: HistoryScope(database: database), by: .local)
        #expect(trash.zones.map(\.zoneName) == ["Other"])
        #expect(trash.zones.first?.records == 2)
        #expect(Set(trash.records.map(\.record.recordName)) == ["parent", "child"])

        let outcome = try store.store.restoreFromTrash(store.container, .development, in: HistoryScope(database: database), by: .local)
        #expect(outcome.zonesRestored == ["Other"])
        #expect(outcome.restored == 2)
        let child = try db.lookup([RecordLookup("child")], zoneName: "Other").first?.record
        #expect(child?.parent == "parent")
        #expect(child?.fields["up"] == .reference(Reference(recordName: "parent", action: .deleteSelf)))
        // The references are live again: deleting the parent takes the child with it.
        try delete(db, ["parent"], zone: "Other")
        #expect(try db.lookup([RecordLookup("child")], zoneName: "Other").first?.record == nil)
    }

    @Test func aTokenOfADeletedZoneNeverReadsTheRestoredZonesLog() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        _ = try save(db, "x", ["title": .string("x")], zone: "Other")
        let old = try db.zoneChanges(zoneName: "Other", syncToken: nil).syncToken
        _ = try db.modifyZones([ZoneOperation(.delete, zoneName: "Other")])
        _ = try store.store.restoreFromTrash(
            store.container, .development, in: HistoryScope(database: database, zoneName: "Other"), by: .local)
        #expect(throws: CloudStoreError.self) { try db.zoneChanges(zoneName: "Other", syncToken: old) }
    }

    @Test func revertIsAConflictCheckedSaveOfAnOlderVersion() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        _ = try save(db, "a", ["title": .string("one"), "n": .int64(1)])
        let current = try save(db, "a", ["title": .string("two"), "extra": .string("x")])
        let history = try store.store.history(ofRecord: "a", zoneName: "Notes", in: database, store.container, .development, by: .local)
        let version = try #require(history.entries.first?.version)

        #expect(throws: CloudStoreError.self) {
            try store.store.revert(
                recordName: "a", zoneName: "Notes", in: database, toVersion: version.id, changeTag: "stale", store.container, .development,
                by: .local)
        }
        let reverted = try store.store.revert(
            recordName: "a", zoneName: "Notes", in: database, toVersion: version.id, changeTag: current.changeTag, store.container,
            .development, by: .local)
        #expect(reverted.fields["title"] == .string("one"))
        #expect(reverted.fields["extra"] == nil)
        #expect(reverted.fields["n"] == .int64(1))
        // The revert itself is a change that kept the version it replaced.
        let after = try store.store.history(ofRecord: "a", zoneName: "Notes", in: database, store.container, .development, by: .local)
        #expect(after.entries.count == 2)
        #expect(after.entries.first?.version.record.changeTag == current.changeTag)
    }

    @Test func aRestorePointUndoesCreatesUpdatesAndDeletesInOneZoneOnly() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        _ = try save(db, "kept", ["title": .string("kept")])
        _ = try save(db, "changed", ["title": .string("before")])
        _ = try save(db, "deleted", ["title": .string("gone")])
        _ = try save(db, "elsewhere", ["title": .string("old")], zone: "Other")
        store.clock.advance(by: 60_000)
        let point = store.clock.tick()
        store.clock.advance(by: 60_000)
        _ = try save(db, "changed", ["title": .string("after")])
        try delete(db, ["deleted"])
        _ = try save(db, "new", ["title": .string("new")])
        _ = try save(db, "elsewhere", ["title": .string("newer")], zone: "Other")
        let scope = HistoryScope(database: database, zoneName: "Notes")

        let plan = try store.store.restorePoint(store.container, .development, in: scope, at: point, dryRun: true, by: .local)
        #expect((plan.removed, plan.reverted, plan.restored) == (1, 1, 1))
        #expect(Set(plan.sample) == ["Notes/new", "Notes/changed", "Notes/deleted"])
        #expect(try db.lookup([RecordLookup("new")], zoneName: "Notes").first?.record != nil)

        var local: [String: Record] = [:]
        let token = try follow(db, zone: "Notes", from: nil, into: &local)
        let done = try store.store.restorePoint(store.container, .development, in: scope, at: point, dryRun: false, by: .local)
        #expect(done.total == 3)
        _ = try follow(db, zone: "Notes", from: token, into: &local)
        #expect(
            local.mapValues { $0.fields["title"] } == ["kept": .string("kept"), "changed": .string("before"), "deleted": .string("gone")])
        #expect(try db.lookup([RecordLookup("elsewhere")], zoneName: "Other").first?.record?.fields["title"] == .string("newer"))
    }

    @Test func aRestorePointOfATypeLeavesOtherTypes() throws {
        let store = try TemporaryStore()
        let db = try notes(store)
        let point = store.clock.tick()
        store.clock.advance(by: 1000)
        _ = try save(db, "note", ["title": .string("n")])
        _ = try db.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "task", recordType: "Task")], zoneName: "Notes"))
        let outcome = try store.store.restorePoint(
            store.container, .development, in: HistoryScope(database: database, recordType: "Note"), at: point, dryRun: false, by: .local)
        #expect(outcome.removed == 1)
        #expect(try db.lookup([RecordLookup("task")], zoneName: "Notes").first?.record != nil)
        #expect(try db.lookup([RecordLookup("note")], zoneName: "Notes").first?.record == nil)
    }

    @Test func versionsOlderThanTheRetentionAreForgottenByUpkeep() throws {
        let store = try TemporaryStore { $0.historyRetention = 3_600_000 }
        let db = try notes(store)
        _ = try save(db, "a", ["title": .string("one")])
        try delete(db, ["a"])
        _ = try db.modifyZones([ZoneOperation(.delete, zoneName: "Other")])
        #expect(try store.store.forgetExpiredVersions() == 0)
        store.clock.advance(by: 3_600_000 + 1)
        _ = try save(db, "b", ["title": .string("one")])
        try delete(db, ["b"])
        #expect(try store.store.forgetExpiredVersions() == 2)
        let trash = try store.store.trash(store.container, .development, in: HistoryScope(), by: .local)
        #expect(trash.records.map(\.record.recordName) == ["b"])
        #expect(trash.zones.isEmpty)

        // An environment's own retention wins over the server's.
        try store.store.setHistoryRetention(7 * 86_400_000, store.container, .development, by: .local)
        #expect(try store.store.historyRetention(store.container, .development) == (7 * 86_400_000, false))
        store.clock.advance(by: 3 * 86_400_000)
        #expect(try store.store.forgetExpiredVersions() == 0)
        #expect(throws: CloudStoreError.self) {
            try store.store.setHistoryRetention(1000, store.container, .development, by: .local)
        }
    }
}
