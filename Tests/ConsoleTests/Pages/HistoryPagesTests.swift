import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

@testable import Console

/// The trash, a record's history and the restore-point dialog over a real socket: the pages
/// show what the history actions return (who deleted or changed what, the changed fields'
/// values escaped), their forms restore, revert (conflict-checked) and restore to a time after
/// the dry run's confirmation, and a viewer is refused on a private database with nothing changed.
@Suite struct HistoryPagesTests {
    fileprivate static let base = "/console/containers/iCloud.com.example.Tests/development/private"

    /// A signed-in owner, a user alice whose private database has the zones Notes (records a, b,
    /// c) and Trip (record t1), and alice's own database to change it as a client would.
    private final class Fixture {
        let server: ConsoleTestServer
        let cookie: (String, String)
        let csrf: String
        let alice: CloudDatabase
        let aliceRecordName: String

        /// - Parameter backups: Whether the server has a backup location.
        init(backups: Bool = false) throws {
            server = try ConsoleTestServer(controlledClock: true, backups: backups)
            let store = server.store
            (cookie, csrf) = try server.signedInOperator()
            let user = try store.addUser(server.container, name: "alice", password: "a long passphrase")
            aliceRecordName = user.userRecordName
            alice = try store.database(server.container, .development, .private, as: .user(user.userRecordName))
            _ = try alice.modifyZones([ZoneOperation(.create, zoneName: "Notes"), ZoneOperation(.create, zoneName: "Trip")])
            for name in ["a", "b", "c"] { try save(name, ["title": .string("first \(name)")]) }
            try save("t1", ["title": .string("trip")], zone: "Trip")
        }

        @discardableResult
        func save(_ name: String, _ fields: [String: FieldValue], zone: String = "Notes") throws -> Record {
            let current = try alice.lookup([RecordLookup(name)], zoneName: zone).first?.record
            let operation = RecordOperation(
                current == nil ? .create : .update, recordName: name, recordType: "Note", recordChangeTag: current?.changeTag,
                fields: fields)
            guard let record = try alice.modify(ModifyRequest(operations: [operation], zoneName: zone)).first?.record else {
                throw TestFailure("save of \(name) failed")
            }
            return record
        }

        func delete(_ names: [String], zone: String = "Notes") throws {
            _ = try alice.modify(ModifyRequest(operations: names.map { RecordOperation(.forceDelete, recordName: $0) }, zoneName: zone))
        }

        func record(_ name: String, zone: String = "Notes") throws -> Record? {
            try alice.lookup([RecordLookup(name)], zoneName: zone).first?.record
        }

        func get(_ path: String, as cookie: (String, String)? = nil) throws -> TestResponse {
            try server.get(HistoryPagesTests.base + path, headers: [cookie ?? self.cookie])
        }

        func post(_ path: String, _ fields: [(String, String)], as caller: (cookie: (String, String), csrf: String)? = nil) throws
            -> TestResponse
        {
            try server.post(
                HistoryPagesTests.base + path, form: [("csrfToken", caller?.csrf ?? csrf), ("user", "alice")] + fields,
                headers: [caller?.cookie ?? cookie])
        }
    }

    @Test func theTrashListsDeletedRecordsAndZonesWithWhoAndRestoresThem() throws {
        let fixture = try Fixture()
        try fixture.delete(["a", "b"])
        _ = try fixture.alice.modifyZones([ZoneOperation(.delete, zoneName: "Trip")])

        let page = try fixture.get("/trash?user=alice")
        #expect(page.status == 200)
        for shown in [">a</code>", ">b</code>", ">t1</code>", "with its zone", ">Trip</code>", "1 record", "alice (<code>"] {
            #expect(page.text.contains(shown), "\(shown)")
        }
        #expect(page.text.contains("value=\"Notes/a\"") && page.text.contains("name=\"restoreZone\" value=\"Trip\""))
        let notes = try fixture.get("/trash?user=alice&zone=Notes")
        #expect(notes.text.contains(">a</code>") && !notes.text.contains(">t1</code>"))
        let otherType = try fixture.get("/trash?user=alice&type=Photo")
        #expect(!otherType.text.contains(">a</code>") && otherType.text.contains("No deleted records in every zone, type Photo."))
        // Reachable from the Zones and Records tabs, and a record's page has its history.
        #expect(try fixture.get("/zones?user=alice").text.contains("/development/private/trash?user=alice"))
        #expect(try fixture.get("/records?user=alice&zone=Notes").text.contains("/development/private/trash?user=alice&amp;zone=Notes"))
        #expect(try fixture.get("/records/c?user=alice&zone=Notes").text.contains("/records/c/history?zone=Notes&amp;user=alice"))

        let selected = try fixture.post("/trash/restore", [("record", "Notes/a")])
        #expect(selected.status == 303)
        #expect(try fixture.record("a")?.fields["title"] == .string("first a"))
        #expect(try fixture.record("b") == nil, "only the selected record comes back")
        #expect(try !fixture.get("/trash?user=alice").text.contains(">a</code>"))

        #expect(try fixture.post("/trash/restore", []).status == 303)
        #expect(try fixture.record("b") == nil)

        let zone = try fixture.post("/trash/restore", [("restoreZone", "Trip")])
        #expect(zone.status == 303)
        #expect(try fixture.record("t1", zone: "Trip")?.fields["title"] == .string("trip"))

        let since = Formatting.localInput(1_600_000_000_000, in: TimeZone(identifier: "UTC")!)
        #expect(try fixture.post("/trash/restore", [("restoreSince", "yes"), ("since", since), ("zone", "Notes")]).status == 303)
        #expect(try fixture.record("b")?.fields["title"] == .string("first b"))
        let audit = try fixture.server.store.auditEntries(AuditFilter(limit: 10)).map(\.action)
        #expect(audit.filter { $0 == "trash.restore" }.count == 3)
    }

    @Test func theTrashListsTheMostRecentlyDeletedAndSaysWhenThereAreMore() throws {
        let fixture = try Fixture()
        let names = (0...HistoryPages.shownRecords).map { "n\($0)" }
        for start in stride(from: 0, to: names.count, by: 100) {
            let batch = names[start..<min(start + 100, names.count)]
            _ = try fixture.alice.modify(
                ModifyRequest(
                    operations: batch.map { RecordOperation(.create, recordName: $0, recordType: "Note", fields: [:]) }, zoneName: "Notes"))
        }
        try fixture.delete(["n0"])
        try fixture.delete(Array(names[1...100]))
        try fixture.delete(Array(names[101...]))
        let page = try fixture.get("/trash?user=alice&zone=Notes").text
        #expect(page.components(separatedBy: "name=\"record\"").count - 1 == HistoryPages.shownRecords)
        #expect(page.contains("The \(HistoryPages.shownRecords) most recently deleted are shown"))
        #expect(!page.contains("value=\"Notes/n0\""), "the first deleted is the one left out")
    }

    @Test func theTrashsNextPageLinkListsTheOthersEachOnce() throws {
        let fixture = try Fixture()
        let names = (0..<(HistoryPages.shownRecords + 30)).map { "p\($0)" }
        for start in stride(from: 0, to: names.count, by: 100) {
            let batch = Array(names[start..<min(start + 100, names.count)])
            _ = try fixture.alice.modify(
                ModifyRequest(
                    operations: batch.map { RecordOperation(.create, recordName: $0, recordType: "Note", fields: [:]) }, zoneName: "Notes"))
            try fixture.delete(batch)
        }
        _ = try fixture.alice.modifyZones([ZoneOperation(.delete, zoneName: "Trip")])
        func listed(_ page: String) -> [String] {
            page.matches(of: /name="record" value="Notes\/(p[0-9]+)"/).map { String($0.1) }
        }
        let first = try fixture.get("/trash?user=alice&zone=Notes").text
        #expect(listed(first).count == HistoryPages.shownRecords)
        #expect(first.contains("Deleted zones"), "the deleted zones are on the first page")
        #expect(try fixture.get("/trash?user=alice").text.contains("value=\"Trip\""), "the deleted zone Trip")
        let next = try #require(first.firstMatch(of: /href="([^"]+)" rel="next">Next page</)?.1)
        #expect(next.contains("zone=Notes") && next.contains("user=alice"), "the filter and the user are kept: \(next)")
        // Deleted after the first page was shown: not on the next one (it is newer than the pages).
        _ = try fixture.alice.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "late", recordType: "Note", fields: [:])], zoneName: "Notes"))
        try fixture.delete(["late"])
        let second = try fixture.server.get(String(next).replacingOccurrences(of: "&amp;", with: "&"), headers: [fixture.cookie]).text
        #expect(listed(second).count == 30)
        #expect(Set(listed(first) + listed(second)) == Set(names), "every deleted record, each once")
        #expect(!second.contains("rel=\"next\""), "the last page links to none after it")
        #expect(second.contains(">First page</a>"))
        #expect(!second.contains("Deleted zones"), "the zones are listed on the first page only")
    }

    @Test func aRecordsHistoryShowsEachChangeAndRevertsConflictChecked() throws {
        let fixture = try Fixture()
        try fixture.save("c", ["title": .string("<b>bold</b>"), "n": .int64(1)])
        let latest = try fixture.save("c", ["title": .string("third"), "n": .int64(1)])

        let page = try fixture.get("/records/c/history?user=alice&zone=Notes")
        #expect(page.status == 200)
        let text = page.text
        #expect(text.contains("&lt;b&gt;bold&lt;/b&gt;") && !text.contains("<b>bold</b>"), "values are escaped")
        let versions = try fixture.server.store.history(
            ofRecord: "c", zoneName: "Notes", in: .private(fixture.aliceRecordName), fixture.server.container, .development, by: .local
        ).entries.map(\.version.id)
        #expect(versions.count == 2)
        let headings = versions.map { text.range(of: "Version \($0) ")?.lowerBound }
        #expect(headings.allSatisfy { $0 != nil } && headings[0]! < headings[1]!, "newest first")
        // The newest change: the title from bold to third; the older one: first c to bold, and n added.
        #expect(text.contains("<del>&lt;b&gt;bold&lt;/b&gt;</del></td><td data-label=\"After the change\"><ins>third</ins>"))
        #expect(text.contains("<del>first c</del></td><td data-label=\"After the change\"><ins>&lt;b&gt;bold&lt;/b&gt;</ins>"))
        #expect(text.contains("<del>(none)</del></td><td data-label=\"After the change\"><ins>1</ins>"))
        #expect(text.contains("alice (<code>") && text.contains("changed"))

        // A stale change tag is refused with the store's reason, and nothing changes.
        let stale = try fixture.post(
            "/records/c/revert", [("zone", "Notes"), ("version", String(versions[1])), ("changeTag", "stale-tag")])
        #expect(stale.status == 409)
        #expect(stale.text.contains("Not reverted: ") && stale.text.contains("role=\"alert\""))
        #expect(try fixture.record("c")?.changeTag == latest.changeTag)

        let reverted = try fixture.post(
            "/records/c/revert", [("zone", "Notes"), ("version", String(versions[1])), ("changeTag", latest.changeTag)])
        #expect(reverted.status == 303)
        #expect(reverted.header("Location")?.contains("/records/c?zone=Notes") == true)
        #expect(try fixture.record("c")?.fields["title"] == .string("first c"))
    }

    @Test func aRestorePointShowsTheDryRunThenAppliesOnceConfirmed() throws {
        let fixture = try Fixture()
        let clock = fixture.server.clock
        clock.advance(by: 60_000)
        let point = clock.tick()
        clock.advance(by: 60_000)
        try fixture.save("a", ["title": .string("changed a")])
        try fixture.delete(["b"])
        try fixture.save("d", ["title": .string("new d")])
        try fixture.save("t2", ["title": .string("newer trip")], zone: "Trip")
        let at = Formatting.localInput(point, in: TimeZone(identifier: "UTC")!)

        let dialog = try fixture.get("/restore-point?user=alice&zone=Notes")
        #expect(
            dialog.status == 200 && dialog.text.contains("type=\"datetime-local\"")
                && dialog.text.contains("<option value=\"Notes\" selected>"))

        let preview = try fixture.post("/restore-point", [("zone", "Notes"), ("at", at)])
        #expect(preview.status == 200)
        for said in ["1 record created since will be deleted", "1 record changed since", "1 record deleted since", "Restore 3 records"] {
            #expect(preview.text.contains(said), "\(said)")
        }
        #expect(preview.text.contains("name=\"confirmed\" value=\"yes\"") && preview.text.contains("<code>Notes/d</code>"))
        #expect(try fixture.record("d") != nil && fixture.record("b") == nil, "the dry run changes nothing")

        // A record type in every zone: the other zone's new record counts too.
        let byType = try fixture.post("/restore-point", [("zone", ""), ("type", "Note"), ("at", at)])
        #expect(byType.status == 200 && byType.text.contains("Restore the Note records to "))
        #expect(byType.text.contains("2 records created since will be deleted") && byType.text.contains("<code>Trip/t2</code>"))

        let applied = try fixture.post("/restore-point", [("zone", "Notes"), ("at", String(point / 1000 * 1000)), ("confirmed", "yes")])
        #expect(applied.status == 303)
        #expect(try fixture.record("d") == nil)
        #expect(try fixture.record("a")?.fields["title"] == .string("first a"))
        #expect(try fixture.record("b")?.fields["title"] == .string("first b"))
        #expect(try fixture.record("t2", zone: "Trip") != nil, "another zone's newer writes stay")

        let missing = try fixture.post("/restore-point", [("zone", "Nowhere"), ("at", at)])
        #expect(missing.status == 404 && missing.text.contains("role=\"alert\""))
        let noTime = try fixture.post("/restore-point", [("zone", "Notes"), ("at", "")])
        #expect(noTime.status == 400)
    }

    @Test func aViewerIsRefusedOnAPrivateDatabaseAndNothingChanges() throws {
        let fixture = try Fixture()
        try fixture.delete(["a"])
        let store = fixture.server.store
        _ = try store.addOperator("vera", password: "operator password", role: .viewer)
        let session = try store.signInOperator("vera", password: "operator password", clientAddress: nil)
        let vera = (cookie: ("Cookie", "cumulus_console=" + session.secret), csrf: session.session.csrfToken)
        let version = try store.trash(
            fixture.server.container, .development, in: HistoryScope(database: .private(fixture.aliceRecordName)), by: .local
        ).records[0].id
        let audited = try store.auditEntries(AuditFilter(limit: 1000)).count

        for path in ["/trash?user=alice", "/records/a/history?user=alice&zone=Notes", "/restore-point?user=alice&zone=Notes"] {
            let page = try fixture.get(path, as: vera.cookie)
            #expect(page.status == 403, "\(path)")
            #expect(!page.text.contains("first a"))
        }
        let current = try fixture.record("c")
        let at = String(try #require(current).modified.timestamp)
        for (path, fields) in [
            ("/trash/restore", [("record", "Notes/a")]), ("/trash/restore", [("restoreZone", "Notes")]),
            ("/records/a/revert", [("zone", "Notes"), ("version", String(version))]),
            ("/restore-point", [("zone", "Notes"), ("at", at), ("confirmed", "yes")]),
            ("/history-retention", [("days", "1")]),
        ] {
            #expect(try fixture.post(path, fields, as: vera).status == 403, "\(path)")
        }
        #expect(try fixture.record("a") == nil)
        #expect(try store.auditEntries(AuditFilter(limit: 1000)).count == audited)
    }

    /// The trash says how long the environment keeps it, and an operator changes that for the
    /// environment (audited) or gives it back the server's default; a day count out of range is
    /// refused with a reason and changes nothing.
    @Test func theTrashSetsHowLongTheEnvironmentKeepsIt() throws {
        let fixture = try Fixture()
        let store = fixture.server.store
        let container = fixture.server.container
        let before = try fixture.get("/trash?user=alice").text
        #expect(before.contains("are kept 30 days, the server's default"), "\(before.components(separatedBy: "How long").last ?? "")")

        let saved = try fixture.post("/history-retention", [("days", "90")])
        #expect(saved.status == 303)
        #expect(try store.historyRetention(container, .development) == (90 * 86_400_000, false))
        #expect(try store.auditEntries(AuditFilter(limit: 5)).first?.action.hasPrefix("history.retention") == true)
        #expect(try fixture.get("/trash?user=alice").text.contains("are kept 90 days; they take"))

        let refused = try fixture.post("/history-retention", [("days", "0")])
        #expect(refused.status == 303 || refused.status == 400)
        #expect(try store.historyRetention(container, .development) == (90 * 86_400_000, false))

        _ = try fixture.post("/history-retention", [("days", "90"), ("serverDefault", "yes")])
        #expect(try store.historyRetention(container, .development) == (30 * 86_400_000, true))
    }

    /// A zone restored from a backup from the console: the dialog lists the backups, the post
    /// shows what would change, the confirmed post applies it; a developer neither sees the way
    /// there nor gets through, with nothing changed.
    @Test func aZoneRestoresFromABackupAfterThePreviewAndOnlyForAnOwner() throws {
        let fixture = try Fixture(backups: true)
        let store = fixture.server.store
        let backup = try store.takeBackup().name
        try fixture.save("a", ["title": .string("changed a")])
        try fixture.delete(["b"])
        try fixture.save("d", ["title": .string("new d")])

        let pointDialog = try fixture.get("/restore-point?user=alice&zone=Notes")
        #expect(
            pointDialog.text.contains("From a backup instead")
                && pointDialog.text.contains("/restore-from-backup?user=alice&amp;zone=Notes"))
        let dialog = try fixture.get("/restore-from-backup?user=alice&zone=Notes")
        #expect(dialog.status == 200 && dialog.text.contains("<option value=\"\(backup)\">"))
        #expect(dialog.text.contains("<option value=\"Notes\" selected>"))

        let preview = try fixture.post("/restore-from-backup", [("backup", backup), ("zone", "Notes")])
        #expect(preview.status == 200)
        for said in [
            "1 record missing now will be restored", "1 record changed since will get back its version in the backup",
            "1 record the backup does not hold will be deleted", "Restore 3 records", "<code>Notes/d</code>",
        ] {
            #expect(preview.text.contains(said), "\(said)")
        }
        #expect(try fixture.record("d") != nil && fixture.record("b") == nil, "the preview changes nothing")
        #expect(try fixture.post("/restore-from-backup", [("zone", "Notes")]).status == 400, "a backup is chosen")

        _ = try store.addOperator("dev", password: "operator password", role: .developer)
        let session = try store.signInOperator("dev", password: "operator password", clientAddress: nil)
        let developer = (cookie: ("Cookie", "cumulus_console=" + session.secret), csrf: session.session.csrfToken)
        #expect(!(try fixture.get("/restore-point?user=alice&zone=Notes", as: developer.cookie).text.contains("From a backup instead")))
        #expect(try fixture.get("/restore-from-backup?user=alice&zone=Notes", as: developer.cookie).status == 403)
        let refused = try fixture.post(
            "/restore-from-backup", [("backup", backup), ("zone", "Notes"), ("confirmed", "yes")], as: developer)
        #expect(refused.status == 403)
        #expect(try fixture.record("d") != nil && fixture.record("b") == nil, "nothing changed for the developer")

        let applied = try fixture.post("/restore-from-backup", [("backup", backup), ("zone", "Notes"), ("confirmed", "yes")])
        #expect(applied.status == 303)
        #expect(try fixture.record("d") == nil)
        #expect(try fixture.record("a")?.fields["title"] == .string("first a"))
        #expect(try fixture.record("b")?.fields["title"] == .string("first b"))
        #expect(try store.auditEntries(AuditFilter(limit: 1)).first?.action == "history.restore-from-backup")
    }
}
