import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// While its writer is idle a database keeps one read transaction open on the newest snapshot
/// (``SQLiteReadMarkPin``), and lets it go while the writer writes.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct ReadMarkPinTests {
    private static let migrator = SQLiteMigrator(migrations: ["CREATE TABLE notes(id INTEGER PRIMARY KEY, text TEXT NOT NULL)"])

    /// What `PRAGMA wal_checkpoint(TRUNCATE)` on a connection of its own reports: whether a
    /// reader kept it from starting the log again, and the log's frames.
    private static func truncatingCheckpoint(_ path: String) throws -> (busy: Bool, logFrames: Int64) {
        let connection = try SQLiteConnection(path: path, busyTimeoutMilliseconds: 0)
        let row = try connection.statement("PRAGMA wal_checkpoint(TRUNCATE)").firstRow { row in
            (row.integer(0), row.integer(1))
        }
        return (row?.0 == 1, row?.1 ?? -1)
    }

    private static func insert(_ text: String, into database: SQLiteDatabase) throws {
        try database.write { try $0.statement("INSERT INTO notes(text) VALUES (?)").execute([.text(text)]) }
    }

    @Test func anIdleWriterHoldsAReadTransactionThatReadersAndWritesGoPast() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/pin.sqlite"
        let database = try SQLiteDatabase(path: path, synchronous: .normal, migrator: Self.migrator)
        // A truncating checkpoint can copy the log back whatever the pin holds, but it can only
        // start the log again from its beginning when no transaction reads from it. The writer
        // takes the pin a moment after its last write; a probe that comes first truncates the
        // log, and the pin then reads the file alone (where it keeps no checkpoint from
        // anything), so each try writes again first.
        var written: [String] = []
        var checkpoint = (busy: false, logFrames: Int64(0))
        let deadline = Date().addingTimeInterval(30)
        repeat {
            written.append("note \(written.count)")
            try Self.insert(written.last!, into: database)
            usleep(20_000)
            checkpoint = try Self.truncatingCheckpoint(path)
        } while !checkpoint.busy && Date() < deadline
        #expect(checkpoint.busy, "no read transaction kept the log from starting again")
        #expect(checkpoint.logFrames > 0)

        // The pin neither hides later commits from readers nor holds up writes.
        written.append("last")
        try Self.insert("last", into: database)
        let texts = try database.read { connection in
            try connection.statement("SELECT text FROM notes ORDER BY id").rows { $0.text(0) }
        }
        #expect(texts == written)
    }
}
