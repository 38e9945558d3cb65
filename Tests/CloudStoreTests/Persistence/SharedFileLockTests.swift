import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Another process (the `cumulus` CLI beside a running server) may open the same database.
/// SQLite tells it whether it is the last user of the file by POSIX locks, which a process
/// loses on a file whenever it closes any descriptor of that file.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct SharedFileLockTests {
    @Test func openingAnotherConnectionKeepsThisProcesssLocksSoAnotherProcessLeavesTheLogAlone() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/shared.sqlite"
        let first = try SQLiteConnection(path: path)
        try first.execute("CREATE TABLE t(x INTEGER)")
        try first.execute("INSERT INTO t VALUES (1)")
        #expect(FileManager.default.fileExists(atPath: path + "-wal"))
        // A second connection to the existing file, as a new reader thread would open.
        let second = try SQLiteConnection(path: path)
        #expect(try second.statement("SELECT count(*) FROM t").scalarInteger() == 1)

        // Another process that opens and closes the database deletes the log only when it
        // believes no one else has the file open; here two connections still do.
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute('SELECT count(*) FROM t').fetchall(); c.close()", path,
        ]
        try process.run()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        #expect(FileManager.default.fileExists(atPath: path + "-wal"), "the other process took the file for its own and removed the log")
        withExtendedLifetime((first, second)) {}
    }
}
