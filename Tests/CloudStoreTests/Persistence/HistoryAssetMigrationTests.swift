import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Versions kept before the history held asset references get theirs from their payloads when
/// the file is migrated, so that the collector spares their blobs from the first round.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and their migration")) struct HistoryAssetMigrationTests {
    @Test func versionsKeptBeforeTheMigrationHoldTheirBlobs() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/development.sqlite"
        let migrations = SQLiteEnvironmentMigrations.migrator.migrations
        let previous = SQLiteMigrator(migrations: Array(migrations.dropLast()))
        let sha = String(repeating: "ab", count: 32)
        let asset = Asset(fileChecksum: AssetReceiptCheck.checksum(of: sha), size: 3)
        let payload = RecordPayloadCodec.encode(["image": .asset(asset), "title": .string("x")])
        do {
            let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: previous)
            try database.write { connection in
                try connection.statement(
                    """
                    INSERT INTO record_history(scope, owner, zone_name, name, type_name, tag, created, created_by, created_device,
                        modified, modified_by, modified_device, size, payload, kind, time)
                    VALUES (0, '', '_defaultZone', ?, 'Note', 't', 0, '_u', '', 0, '_u', '', 3, ?, 1, 0)
                    """
                ).execute([.text("with"), .blob(payload)])
                try connection.statement(
                    """
                    INSERT INTO record_history(scope, owner, zone_name, name, type_name, tag, created, created_by, created_device,
                        modified, modified_by, modified_device, size, payload, kind, time)
                    VALUES (0, '', '_defaultZone', 'without', 'Note', 't', 0, '_u', '', 0, '_u', '', 3, ?, 1, 0)
                    """
                ).execute([.blob(RecordPayloadCodec.encode(["title": .string("y")]))])
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
}
