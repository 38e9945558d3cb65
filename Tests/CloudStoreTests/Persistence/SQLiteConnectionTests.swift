import CSQLite
import Glibc
import TestSupport
import Testing

@testable import CloudStore

/// What every connection of the store shares: SQLite's process-wide settings, and how a
/// connection finds its prepared statements.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct SQLiteConnectionTests {
    /// A connection to a new file with a table `t` of ten rows, 0 to 9.
    private static func connection(in directory: TemporaryDirectory) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: directory.path + "/connection.sqlite")
        try connection.execute("CREATE TABLE t(x INTEGER)")
        for value in 0..<10 { try connection.statement("INSERT INTO t VALUES (?)").execute([.integer(Int64(value))]) }
        return connection
    }

    /// With its memory statistics on, SQLite counts every allocation of every connection under
    /// one global mutex that all the workers contend for; they are off, so nothing is counted.
    /// A full disk is a full store however SQLite meets it: as `SQLITE_FULL` on a write, or as an
    /// I/O error whose system error is `ENOSPC` when it makes a file; other I/O errors stay internal.
    @Test func aFullDiskIsAFullStoreWhicheverWaySQLiteReportsIt() {
        let full = CloudStoreError.quotaExceeded("The database is full")
        #expect(SQLiteError(code: SQLITE_FULL, extendedCode: SQLITE_FULL, message: "full").cloudStoreError == full)
        let making = SQLiteError(code: SQLITE_IOERR, extendedCode: SQLITE_IOERR, message: "disk I/O error", systemErrno: ENOSPC)
        #expect(making.cloudStoreError == full)
        let other = SQLiteError(code: SQLITE_IOERR, extendedCode: SQLITE_IOERR, message: "disk I/O error", systemErrno: EIO)
        #expect(other.cloudStoreError != full)
    }

    @Test func sqliteCountsNoMemoryAcrossConnections() throws {
        let directory = try TemporaryDirectory()
        let connection = try Self.connection(in: directory)
        for index in 0..<100 {
            try connection.statement("INSERT INTO t VALUES (?)").execute([.integer(Int64(index * 1_000_000))])
        }
        #expect(try connection.statement("SELECT count(*) FROM t").scalarInteger() == 110)
        #expect(sqlite3_memory_used() == 0)
        #expect(sqlite3_memory_highwater(0) == 0)
    }

    /// A statement run again with fewer values than parameters reads the rest as NULL, never
    /// as the values of its last run; with all of them, it reads the new ones.
    @Test func parametersNotBoundAgainReadAsNull() throws {
        let directory = try TemporaryDirectory()
        let connection = try Self.connection(in: directory)
        let select = "SELECT coalesce(?, 'none'), coalesce(?, 'none'), coalesce(?, 'none')"
        func row(_ values: [SQLiteValue]) throws -> [String] {
            try connection.statement(select).firstRow(values) { [$0.text(0), $0.text(1), $0.text(2)] } ?? []
        }
        #expect(try row([.text("a"), .text("b"), .text("c")]) == ["a", "b", "c"])
        #expect(try row([.text("d")]) == ["d", "none", "none"])
        #expect(try row([.text("e"), .text("f"), .text("g")]) == ["e", "f", "g"])
        #expect(try row([]) == ["none", "none", "none"])
    }

    /// A statement is found first by the address of the text asked with, then by the text:
    /// whatever storage a text comes in, it gets the statement of that text.
    @Test func aTextGetsItsOwnStatementWhateverItsStorage() throws {
        let directory = try TemporaryDirectory()
        let connection = try Self.connection(in: directory)
        let constant = "SELECT count(*) FROM t WHERE x > 4"
        let first = try connection.statement(constant)
        #expect(try connection.statement(constant) === first)
        var built = "SELECT count(*) FROM t WHERE x > "
        built += "4"
        #expect(try connection.statement(built) === first)

        // Texts of one length made and freed over and over: a freed text's address is handed to
        // the next, and must never find the statement of another text.
        for round in 0..<300 {
            let threshold = round % 10
            let text = "SELECT count(*) FROM t WHERE x > \(threshold)"
            let statement = try connection.statement(text)
            #expect(statement.sql == text)
            #expect(try statement.scalarInteger() == Int64(9 - threshold))
        }
        #expect(try connection.statement(constant) === first)

        // Texts short enough to live in the value are told apart by their text.
        let count = try connection.statement("SELECT 1")
        let other = try connection.statement("SELECT 2")
        #expect(count !== other)
        var shortBuilt = "SELECT "
        shortBuilt += "1"
        #expect(try connection.statement(shortBuilt) === count)
        #expect(try connection.statement("SELECT 2").scalarInteger() == 2)
        #expect(try connection.statement("SELECT 1").scalarInteger() == 1)
    }

    /// A reader takes the schema version and zones generation it read before while no other
    /// connection has committed, and reads them again once one has.
    @Test func aReaderReadsTheVersionsAgainOnlyAfterAnotherConnectionCommitted() throws {
        let store = try TemporaryStore()
        try store.database().create("Note", "a")
        let path = "\(store.directory)/containers/\(store.container.rawValue)/development.sqlite"
        let reader = try SQLiteConnection(path: path)
        func versions() throws -> (schema: Int64, zones: Int64) {
            try reader.transaction(immediate: false) { try SQLiteEnvironmentSession.versions(readingOn: reader) }
        }
        let first = try versions()
        #expect(reader.versionsSeen?.schema == first.schema && reader.versionsSeen?.zones == first.zones)
        #expect(try versions() == first)

        let other = try RawSQLite(path: path)
        try other.execute("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'schema_version'")
        #expect(try versions() == (first.schema + 1, first.zones))
        try other.execute("INSERT OR REPLACE INTO meta(key, value) VALUES ('zones_generation', \(first.zones + 7))")
        #expect(try versions() == (first.schema + 1, first.zones + 7))
        #expect(try versions() == (first.schema + 1, first.zones + 7))
    }

    /// A column read as the same text as the one before gives that string back, and any other
    /// text a string of its own: the same texts as reading each alone.
    @Test func aTextReadAsTheLastOneIsTheSameText() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.path + "/texts.sqlite")
        try connection.execute("CREATE TABLE u(n INTEGER PRIMARY KEY, v TEXT)")
        let texts = [
            "_0123456789abcdef0123456789abcdef", "_0123456789abcdef0123456789abcdef", "_0123456789abcdef0123456789abcdeX",
            "short", "short", "", "", "_0123456789abcdef0123456789abcdef", "naïve — a longer text in UTF-8 ✓",
            "naïve — a longer text in UTF-8 ✓",
        ]
        for (index, text) in texts.enumerated() {
            try connection.statement("INSERT INTO u VALUES (?, ?)").execute([.integer(Int64(index)), .text(text)])
        }
        // A stored text that is not valid UTF-8 reads repaired, as every text read does.
        try connection.execute("INSERT INTO u VALUES (100, CAST(x'5f41ff42' AS TEXT)), (101, CAST(x'5f41ff42' AS TEXT))")
        var recent = "_0123456789abcdef0123456789abcdeX"
        var alone: [String] = [], reusing: [String] = []
        _ = try connection.statement("SELECT v FROM u ORDER BY n").rows { row in
            alone.append(row.text(0))
            reusing.append(row.text(0, sameAs: &recent))
        }
        #expect(reusing == alone)
        #expect(Array(reusing.prefix(texts.count)) == texts)
        #expect(reusing.suffix(2) == ["_A\u{FFFD}B", "_A\u{FFFD}B"])
        #expect(recent == "_A\u{FFFD}B")
    }
}
