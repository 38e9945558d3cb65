import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

/// `cumulus trash`, `cumulus history` and `cumulus restore-point` through the management actions,
/// on the data directory.
@Suite struct HistoryCommandsTests {
    /// The command line on the admin fixture's store, and alice's private database to change as
    /// a client would.
    private struct Commands {
        let fixture: AdminFixture
        let environment: [String: String]
        let place: [String]
        /// alice's private database, where the Work zone is.
        let work: CloudDatabase
        let privately = ["--database", "private", "--user", "alice"]

        init() throws {
            fixture = try AdminFixture()
            environment = fixture.fixture.postgresDatabase.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
            place = ["--container", fixture.container, "--environment", "development", "--data-dir", fixture.fixture.directory]
            let alice = try #require(try fixture.store.user(named: "alice", in: fixture.fixture.container)).userRecordName
            work = try fixture.store.database(fixture.fixture.container, .development, .private, as: .user(alice))
        }

        /// Runs `cumulus` with `arguments` on the store; its output as JSON, once it succeeded.
        func run(_ arguments: [String]) throws -> JSONValue {
            let run = try CumulusBinary.run(arguments + place, environment: environment)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            return try JSONValue.parse(run.output)
        }

        /// Runs `cumulus` with `arguments` on the store, expecting nothing of it.
        func attempt(_ arguments: [String]) throws -> CumulusBinary.Result {
            try CumulusBinary.run(arguments + place, environment: environment)
        }
    }
    @Test func deletedRecordsAreListedRestoredRevertedAndAZoneBroughtBack() throws {
        let commands = try Commands()
        let (work, privately, run) = (commands.work, commands.privately, commands.run)
        _ = try work.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "a", recordType: "Note", fields: ["title": .string("first")]),
                    RecordOperation(.create, recordName: "b", recordType: "Note", fields: ["title": .string("b")]),
                ], zoneName: "Work"))
        let point = try #require(try work.lookup([RecordLookup("b")], zoneName: "Work").first?.record?.modified.timestamp)
        _ = try work.modify(
            ModifyRequest(
                operations: [RecordOperation(.forceUpdate, recordName: "a", recordType: "Note", fields: ["title": .string("second")])],
                zoneName: "Work"))
        _ = try work.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "b")], zoneName: "Work"))

        let trash = try run(["trash", "list", "--zone", "Work"] + privately)
        #expect(trash["records"]?.arrayValue?.map { $0["recordName"] } == ["b"])
        #expect(try run(["trash", "list", "--zone", "Work", "--type", "Other"] + privately)["records"] == [])

        let history = try run(["history", "--zone", "Work", "--record", "a"] + privately)
        #expect(history["versions"]?[0]?["changedFields"] == ["title"])
        let version = try #require(history["versions"]?[0]?["version"]?.int64Value(acceptingNumericString: false))
        let reverted = try run(["history", "revert", "--zone", "Work", "--record", "a", "--version", String(version)] + privately)
        #expect(reverted["record"]?["fields"]?["title"]?["value"] == "first")

        let restored = try run(["trash", "restore", "--zone", "Work", "--record", "b"] + privately)
        #expect(restored["restored"] == 1)
        #expect(try work.lookup([RecordLookup("b")], zoneName: "Work").first?.record?.fields["title"] == .string("b"))

        let plan = try run(["restore-point", "--zone", "Work", "--at", String(point), "--dry-run"] + privately)
        // The revert and the restore brought the zone back to what it held then.
        #expect(plan["dryRun"] == true && plan["restored"] == 0 && plan["reverted"] == 0 && plan["removed"] == 0, "\(plan)")
        let before = try run(["restore-point", "--zone", "Work", "--at", String(point - 1), "--dry-run"] + privately)
        #expect(before["removed"] == 2 && before["reverted"] == 0, "a and b were made after that: \(before)")
        let refused = try commands.attempt(["restore-point", "--at", "0"] + privately)
        #expect(refused.status != 0 && refused.error.contains("--zone"), "\(refused.error)")

        #expect(try run(["history", "retention", "--set", "7d"])["seconds"] == 604_800)
        #expect(try run(["history", "retention"])["default"] == false)
        #expect(try run(["history", "retention", "--server-default"])["default"] == true)
    }

    @Test func theTrashIsListedAPageAtATimeOrWhole() throws {
        let commands = try Commands()
        let work = commands.work
        let privately = commands.privately + ["--zone", "Work"]
        func run(_ arguments: [String]) throws -> JSONValue { try commands.run(["trash", "list"] + arguments + privately) }
        let names = (0..<5).map { "d\($0)" }
        _ = try work.modify(
            ModifyRequest(
                operations: names.map { RecordOperation(.create, recordName: $0, recordType: "Note", fields: [:]) }, zoneName: "Work"))
        _ = try work.modify(ModifyRequest(operations: names.map { RecordOperation(.forceDelete, recordName: $0) }, zoneName: "Work"))

        func listed(_ page: JSONValue) -> [String] { page["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? [] }
        var pages: [[String]] = []
        var after: String?
        repeat {
            let page = try run(["--limit", "2"] + (after.map { ["--after", $0] } ?? []))
            pages.append(listed(page))
            after = page["next"]?.stringValue
        } while after != nil && pages.count < 5
        #expect(pages.map(\.count) == [2, 2, 1])
        #expect(pages.flatMap { $0 }.sorted() == names, "each deleted record once")
        let whole = try run(["--limit", "2", "--all"])
        #expect(listed(whole) == pages.flatMap { $0 } && whole["next"] == .null)
        let refused = try commands.attempt(["trash", "list", "--after", "nowhere"] + privately)
        #expect(refused.status != 0 && refused.error.contains("after"), "\(refused.error)")
    }

    /// `cumulus restore-point --backup NAME` brings a zone back to what one of the server's
    /// backups holds, after a dry run that counts it; a time and a backup together are refused.
    @Test func aZoneIsBroughtBackToWhatABackupHolds() throws {
        let commands = try Commands()
        let (store, work, privately, run) = (commands.fixture.store, commands.work, commands.privately, commands.run)
        _ = try work.modify(
            ModifyRequest(
                operations: ["a", "b"].map { RecordOperation(.create, recordName: $0, recordType: "Note", fields: ["title": .string($0)]) },
                zoneName: "Work"))
        let backup = try store.takeBackup().name
        _ = try work.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.forceDelete, recordName: "a"),
                    RecordOperation(.create, recordName: "c", recordType: "Note", fields: ["title": .string("c")]),
                ], zoneName: "Work"))

        let plan = try run(["restore-point", "--zone", "Work", "--backup", backup, "--dry-run"] + privately)
        #expect(plan["dryRun"] == true && plan["restored"] == 1 && plan["removed"] == 1 && plan["reverted"] == 0, "\(plan)")
        #expect(try work.lookup([RecordLookup("a")], zoneName: "Work").first?.record == nil, "the dry run changes nothing")
        let done = try run(["restore-point", "--zone", "Work", "--backup", backup] + privately)
        #expect(done["dryRun"] == false && done["restored"] == 1 && done["removed"] == 1, "\(done)")
        #expect(try work.lookup([RecordLookup("a")], zoneName: "Work").first?.record?.fields["title"] == .string("a"))
        #expect(try work.lookup([RecordLookup("c")], zoneName: "Work").first?.record == nil)

        let both = try commands.attempt(["restore-point", "--zone", "Work", "--at", "0", "--backup", backup] + privately)
        #expect(both.status != 0 && both.error.contains("--backup"), "\(both.error)")
    }
}
