import CSQLite
import Testing
import TestSupport
@testable import CloudStore

/// SQLite's process-wide settings, made before the first connection opens.
@Suite struct ProcessSettingsTests {
    /// With its memory statistics on, SQLite counts every allocation of every connection under
    /// one global mutex that all the workers contend for; they are off, so nothing is counted.
    @Test func sqliteCountsNoMemoryAcrossConnections() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.path + "/settings.sqlite")
        try connection.execute("CREATE TABLE t(x TEXT)")
        for index in 0..<100 {
            try connection.statement("INSERT INTO t VALUES (?)").execute([.text(String(repeating: "x", count: index * 10))])
        }
        #expect(try connection.statement("SELECT count(*) FROM t").scalarInteger() == 100)
        #expect(sqlite3_memory_used() == 0)
        #expect(sqlite3_memory_highwater(0) == 0)
    }
}
