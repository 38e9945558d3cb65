import Testing
import TestSupport
@testable import CloudStore

/// A connection finds its prepared statements first by the address of the text asked with,
/// then by the text itself: whatever storage a text comes in, it gets the statement of that text.
@Suite struct StatementCacheTests {
    @Test func aTextGetsItsOwnStatementWhateverItsStorage() throws {
        let directory = try TemporaryDirectory()
        let connection = try SQLiteConnection(path: directory.path + "/statements.sqlite")
        try connection.execute("CREATE TABLE t(x INTEGER)")
        for value in 0..<10 { try connection.statement("INSERT INTO t VALUES (?)").execute([.integer(Int64(value))]) }

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
    }
}
