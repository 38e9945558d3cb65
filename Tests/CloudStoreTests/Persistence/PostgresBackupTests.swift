import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Backups and restores of a store on PostgreSQL: a restore, by `cumulus restore` or by hand
/// with `pg_restore`, brings back the backup's data and expires every change token issued
/// before it, so that no device continues a change feed that the restore rewound.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresBackupTests {
    let container = try! ContainerIdentifier("iCloud.com.example.Backup")

    /// A store on `database` with two notes in the public database, and a token taken after them.
    private func populated(_ database: TestDatabase) throws -> (store: CloudStore, token: String) {
        let store = try database.process()
        try store.createContainer(container)
        let notes = try store.database(container, .development, .public, as: .operator())
        try notes.create("Note", "n1", ["title": .string("first")])
        try notes.create("Note", "n2", ["title": .string("second")])
        return (store, try notes.zoneChanges(syncToken: nil).syncToken)
    }

    private func notes(_ store: CloudStore) throws -> CloudDatabase {
        try store.database(container, .development, .public, as: .operator())
    }

    /// The names and titles of the zone's records, as a fresh sync gives them.
    private func freshSync(_ store: CloudStore) throws -> [String: String] {
        var titles: [String: String] = [:]
        for case .record(let record) in try notes(store).zoneChanges(syncToken: nil).records {
            if case .string(let title) = record.fields["title"] { titles[record.recordName] = title }
        }
        return titles
    }

    private func expectExpired(_ token: String, on store: CloudStore, sourceLocation: SourceLocation = #_sourceLocation) throws {
        do {
            let changes = try notes(store).zoneChanges(syncToken: token)
            Issue.record("a token from before the restore was accepted: \(changes.records)", sourceLocation: sourceLocation)
        } catch CloudStoreError.changeTokenExpired {}
    }

    /// Runs `pg_dump` or `pg_restore` as an operator would, without cumulus.
    private func runByHand(_ program: String, _ arguments: [String], on database: TestDatabase) throws {
        let programs = try PostgresClientPrograms(url: database.url)
        try programs.run(program, arguments + ["--dbname", programs.connection])
    }

    @Test func aRestoreBringsBackTheBackupAndExpiresEveryEarlierToken() throws {
        let database = try TestPostgres.makeDatabase()
        let (store, beforeBackup) = try populated(database)
        let directory = try TemporaryDirectory()
        let backup = directory.path + "/store.dump"
        try CloudStore.backUp(store.configuration, to: backup)
        let mode = try FileManager.default.attributesOfItem(atPath: backup)[.posixPermissions] as? Int
        #expect(mode == 0o600)

        // After the backup: a new note, a deleted one, a new record type and container.
        try notes(store).create("Note", "n3", ["title": .string("third")])
        _ = try notes(store).modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n1")]))
        try notes(store).create("Late", "l1")
        try store.createContainer(try ContainerIdentifier("iCloud.com.example.Later"))
        let afterBackup = try notes(store).zoneChanges(syncToken: nil).syncToken
        #expect(try freshSync(store) == ["n2": "second", "n3": "third"])

        let environments = try CloudStore.restore(store.configuration, from: backup)
        #expect(environments == 2)
        let restarted = try database.process()
        #expect(try restarted.containers().map(\.identifier) == [container])
        #expect(try freshSync(restarted) == ["n1": "first", "n2": "second"])
        try expectExpired(beforeBackup, on: restarted)
        try expectExpired(afterBackup, on: restarted)
        // The process that ran through the restore reads the incarnation from the database too.
        try expectExpired(afterBackup, on: store)

        // A fresh sync goes on as usual.
        let fresh = try notes(restarted).zoneChanges(syncToken: nil).syncToken
        try notes(restarted).create("Note", "n4", ["title": .string("fourth")])
        let next = try notes(restarted).zoneChanges(syncToken: fresh).records.compactMap { result -> String? in
            if case .record(let record) = result { return record.recordName } else { return nil }
        }
        #expect(next == ["n4"])
        // The environments made after the backup are gone with it, not left behind for a
        // container of the same name to find.
        let schemas = try RawPostgres(url: database.url).execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname ~ '^(development|production)_'")
        #expect(schemas == [["2"]])
    }

    @Test func aDumpRestoredByHandIntoAnotherDatabaseOfTheClusterIsNoticedAtTheNextStart() throws {
        let original = try TestPostgres.makeDatabase(), copy = try TestPostgres.makeDatabase()
        let (store, token) = try populated(original)
        let directory = try TemporaryDirectory()
        try runByHand("pg_dump", ["--format=custom", "--file", directory.path + "/by-hand.dump"], on: original)
        try runByHand("pg_restore", ["--no-owner", directory.path + "/by-hand.dump"], on: copy)

        let restored = try copy.process()
        try expectExpired(token, on: restored)
        #expect(try freshSync(restored) == ["n1": "first", "n2": "second"])
        // The original, still where it was, keeps its tokens.
        #expect(try notes(store).zoneChanges(syncToken: token).records.isEmpty)
        let again = try original.process()
        #expect(try notes(again).zoneChanges(syncToken: token).records.isEmpty)
    }

    @Test func aDumpRestoredByHandOverTheSameDatabaseIsNoticedByARunningProcessToo() throws {
        let database = try TestPostgres.makeDatabase()
        let (store, token) = try populated(database)
        let directory = try TemporaryDirectory()
        try runByHand("pg_dump", ["--format=custom", "--file", directory.path + "/by-hand.dump"], on: database)
        try runByHand("pg_restore", ["--clean", "--if-exists", "--no-owner", directory.path + "/by-hand.dump"], on: database)

        // The running process checks when its listener reconnects (and every few seconds).
        try RawPostgres(url: database.url).execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(PostgresListener.applicationName)' AND datname = current_database()"
        )
        try waitUntil {
            (try? notes(store).zoneChanges(syncToken: token)) == nil
        }
        try expectExpired(token, on: store)
        try expectExpired(token, on: database.process())
    }

    @Test func anIdentityRecordedInTheEarlierFormKeepsTokensOnlyOnTheSameCluster() throws {
        let database = try TestPostgres.makeDatabase()
        let (store, token) = try populated(database)
        let raw = try RawPostgres(url: database.url)
        let identity = try raw.execute("SELECT cluster_identity FROM catalog.settings")[0][0]
        let parts = identity.split(separator: "/")
        #expect(parts.count == 3)

        // Cluster and timeline as before: completed, tokens kept.
        try raw.execute("UPDATE catalog.settings SET cluster_identity = '\(parts[0])/\(parts[1])'")
        let upgraded = try database.process()
        #expect(try notes(upgraded).zoneChanges(syncToken: token).records.isEmpty)
        #expect(try raw.execute("SELECT cluster_identity FROM catalog.settings") == [[identity]])

        // Another cluster, in the earlier form: tokens expire.
        try raw.execute("UPDATE catalog.settings SET cluster_identity = '1/\(parts[1])'")
        try expectExpired(token, on: database.process())
        _ = store
    }

    @Test func aFileThatIsNotABackupChangesNothing() throws {
        let database = try TestPostgres.makeDatabase()
        let (store, token) = try populated(database)
        let directory = try TemporaryDirectory()
        let text = try directory.file("notes.txt", "not a dump")
        do {
            try CloudStore.restore(store.configuration, from: text)
            Issue.record("a text file was restored")
        } catch CloudStoreError.badRequest(let reason) {
            #expect(reason.contains("not a backup"))
        }
        // A dump of a database that holds no store: refused in the transaction, nothing dropped.
        let other = try TestPostgres.makeDatabase()
        try RawPostgres(url: other.url).execute("CREATE TABLE unrelated(x int)")
        try runByHand("pg_dump", ["--format=custom", "--file", directory.path + "/other.dump"], on: other)
        #expect(throws: CloudStoreError.self) { try CloudStore.restore(store.configuration, from: directory.path + "/other.dump") }
        #expect(try notes(store).zoneChanges(syncToken: token).records.isEmpty)
        #expect(try freshSync(store) == ["n1": "first", "n2": "second"])
    }
}
