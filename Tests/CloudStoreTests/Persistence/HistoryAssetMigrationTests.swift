import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Versions kept before the history held asset references get theirs from their payloads when
/// the file or schema is migrated, so that the collector spares their blobs from the first round.
@Suite(.enabled(if: TestBackend.isDefaultRun, "About each backend's migration itself, once, in the default run"))
struct HistoryAssetMigrationTests {
    static let sha = String(repeating: "ab", count: 32)
    /// A version's payload holding the blob ``sha``, and one holding none.
    static let payloads = (
        with: RecordPayloadCodec.encode([
            "image": .asset(Asset(fileChecksum: AssetReceiptCheck.checksum(of: sha), size: 3)), "title": .string("x"),
        ]),
        without: RecordPayloadCodec.encode(["title": .string("y")])
    )
    /// How many migrations come before the one giving kept versions their blobs (later ones follow it).
    static let sqliteStepsBeforeHistoryAssets = 25
    static let postgresStepsBeforeHistoryAssets = 13
    static let keptColumns =
        "scope, owner, zone_name, name, type_name, tag, created, created_by, created_device, modified, modified_by, modified_device, size, payload, kind, time"

    @Test func versionsKeptBeforeTheMigrationHoldTheirBlobsOnSQLite() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/development.sqlite"
        let migrations = SQLiteEnvironmentMigrations.migrator.migrations
        let previous = SQLiteMigrator(migrations: Array(migrations.prefix(Self.sqliteStepsBeforeHistoryAssets)))
        let sha = Self.sha
        do {
            let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: previous)
            try database.write { connection in
                try connection.statement(
                    """
                    INSERT INTO record_history(\(Self.keptColumns))
                    VALUES (0, '', '_defaultZone', 'with', 'Note', 't', 0, '_u', '', 0, '_u', '', 3, ?, 1, 0)
                    """
                ).execute([.blob(Self.payloads.with)])
                try connection.statement(
                    """
                    INSERT INTO record_history(\(Self.keptColumns))
                    VALUES (0, '', '_defaultZone', 'without', 'Note', 't', 0, '_u', '', 0, '_u', '', 3, ?, 1, 0)
                    """
                ).execute([.blob(Self.payloads.without)])
                try connection.statement(
                    "INSERT INTO asset_blobs(sha, size, stored, compressed, created) VALUES (?, 3, 3, 0, 0)"
                ).execute([.text(sha)])
            }
        }
        _ = try SQLiteEnvironmentStore(path: path, synchronous: .normal)
        let connection = try SQLiteConnection(path: path, synchronous: .normal)
        let held = try connection.statement("SELECT h.name, a.sha FROM history_assets a JOIN record_history h ON h.id = a.id").rows {
            [$0.text(0), $0.text(1)]
        }
        #expect(held == [["with", sha]])
        #expect(try connection.statement("PRAGMA user_version").scalarInteger() == Int64(migrations.count))
    }

    @Test func versionsKeptBeforeTheMigrationHoldTheirBlobsOnPostgreSQL() throws {
        let database = try TestPostgres.makeDatabase()
        let connection = try PostgresConnection(url: database.url)
        let schema = "development_0123456789abcdef0123"
        let migrations = PostgresEnvironmentMigrations.migrator.migrations
        try PostgresMigrator(migrations: Array(migrations.prefix(Self.postgresStepsBeforeHistoryAssets))).migrate(
            connection, schema: schema)
        for (name, payload) in [("with", Self.payloads.with), ("without", Self.payloads.without)] {
            try connection.execute(
                """
                INSERT INTO \(schema).record_history(\(Self.keptColumns))
                VALUES (0, '', '_defaultZone', $1, 'Note', 't', 0, '_u', '', 0, '_u', '', 3, $2, 1, 0)
                """, [.text(name), .bytes(payload)])
        }
        #expect(
            try PostgresEnvironmentMigrations.migrator.migrate(connection, schema: schema) == migrations.count
                - Self.postgresStepsBeforeHistoryAssets)
        let held = try connection.execute(
            "SELECT h.name, a.sha FROM \(schema).history_assets a JOIN \(schema).record_history h ON h.id = a.id"
        )
        .map { [$0.text(0), $0.text(1)] }
        #expect(held == [["with", Self.sha]])
    }
}
