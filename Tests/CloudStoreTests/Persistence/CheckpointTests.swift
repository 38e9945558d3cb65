import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// The write-ahead log is copied back into the database file as writes go on, by the
/// background checkpointer or, past its threshold, by the writer itself; no write is lost.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct CheckpointTests {
    private static let migrator = SQLiteMigrator(migrations: ["CREATE TABLE blobs(id INTEGER PRIMARY KEY, data BLOB NOT NULL)"])
    /// 64 KiB a row, 16 rows (256 pages of 4 KiB) a commit.
    private static let rowBytes = 64 * 1024, rowsPerCommit = 16

    /// A fresh directory for one test's database, removed by the caller.
    private static func temporaryDirectory() throws -> String {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-checkpoint-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return path
    }

    private static func fileSize(_ path: String) -> Int {
        ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int) ?? 0
    }

    private static func write(commits: Int, to database: SQLiteDatabase) throws {
        let data = [UInt8](repeating: 0xA5, count: rowBytes)
        for _ in 0..<commits {
            try database.write { connection in
                for _ in 0..<rowsPerCommit {
                    try connection.statement("INSERT INTO blobs(data) VALUES (?)").execute([.blob(data)])
                }
            }
        }
    }

    @Test func theBackgroundCheckpointerCopiesTheLogIntoTheFile() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/background.sqlite"
        let database = try SQLiteDatabase(
            path: path, synchronous: .normal, migrator: Self.migrator,
            checkpointer: SQLiteCheckpointer(path: path, synchronous: .normal, backgroundThreshold: 1_000, writerThreshold: .max))
        // 12 commits of 256 pages: 3,072 pages, under SQLite's own automatic threshold (which
        // the checkpointer replaces), over the background threshold from the fourth commit on.
        try Self.write(commits: 12, to: database)
        // The checkpoint runs on its own thread: wait for the file to hold what the log held.
        let checkpointed = 1_000 * 4_096
        let deadline = Date().addingTimeInterval(60)
        while Self.fileSize(path) < checkpointed, Date() < deadline { usleep(20_000) }
        #expect(Self.fileSize(path) >= checkpointed, "the database file has \(Self.fileSize(path)) bytes")
        let count = try database.read { try $0.statement("SELECT count(*) FROM blobs").scalarInteger() }
        #expect(count == 12 * Int64(Self.rowsPerCommit))
    }

    @Test func theWriterCheckpointsItselfPastItsThreshold() throws {
        let directory = try Self.temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/writer.sqlite"
        // A background threshold that is never reached: only the writer checkpoints.
        let database = try SQLiteDatabase(
            path: path, synchronous: .normal, migrator: Self.migrator,
            checkpointer: SQLiteCheckpointer(path: path, synchronous: .normal, backgroundThreshold: .max, writerThreshold: 1_000))
        try Self.write(commits: 20, to: database)
        // Each commit that finds 1,000 pages or more in the log copies them back before it
        // returns, so the log restarts instead of growing: it never holds much more than the
        // threshold plus one commit, while the file holds nearly everything.
        let written = 20 * Self.rowsPerCommit * Self.rowBytes
        #expect(Self.fileSize(path) >= written * 3 / 4, "the database file has \(Self.fileSize(path)) bytes")
        #expect(Self.fileSize(path + "-wal") < 1_400 * 4_096, "the log has \(Self.fileSize(path + "-wal")) bytes")
        let count = try database.read { try $0.statement("SELECT count(*) FROM blobs").scalarInteger() }
        #expect(count == 20 * Int64(Self.rowsPerCommit))
    }
}
