import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// A file made before the history counted in storage: opened, its kept versions' bytes are
/// counted once, as a write would have counted them.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files themselves")) struct HistoryStorageMigrationTests {
    @Test func theVersionsAFileKeptBeforeAreCountedOnceWhenItIsOpened() throws {
        let directory = try TemporaryDirectory()
        let migrations = SQLiteEnvironmentMigrations.migrator.migrations
        // The migration that counts them, found by what it does so that migrations appended after it leave this test alone.
        let counting = try #require(
            migrations.firstIndex {
                if case .sql(let sql) = $0 { sql.contains("INSERT INTO zone_stats") && sql.contains("FROM record_history") } else { false }
            })
        let previous = SQLiteMigrator(migrations: Array(migrations[..<counting]))
        for (name, sizes) in [("with-history", [120, 30, 7]), ("without", [])] {
            let path = directory.path + "/\(name).sqlite"
            do {
                let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: previous)
                try database.write { connection in
                    try connection.execute("INSERT INTO zone_stats(zone, records, bytes) VALUES (1, 2, 500)")
                    for size in sizes {
                        try connection.statement(
                            """
                            INSERT INTO record_history(scope, owner, zone_name, name, type_name, tag, created, created_by, created_device,
                                modified, modified_by, modified_device, size, payload, kind, time)
                            VALUES (1, '_u', 'Z', 'r', 'T', 't', 0, '_u', '', 0, '_u', '', ?, ?, 3, 0)
                            """
                        ).execute([.integer(Int64(size)), .blob(RecordPayloadCodec.encode(["title": .string("kept")]))])
                    }
                }
            }
            _ = try SQLiteEnvironmentStore(path: path, synchronous: .normal)
            let connection = try SQLiteConnection(path: path, synchronous: .normal)
            let counted = try connection.statement("SELECT coalesce(sum(bytes), 0) FROM zone_stats WHERE zone <= 0").scalarInteger()
            #expect(counted == Int64(sizes.reduce(0, +)), "\(name)")
            #expect(try connection.statement("SELECT sum(bytes) FROM zone_stats").scalarInteger() == 500 + Int64(sizes.reduce(0, +)))
            #expect(try connection.statement("SELECT count(*) FROM zone_stats WHERE zone <= 0").scalarInteger() == (sizes.isEmpty ? 0 : 1))
        }
    }
}
