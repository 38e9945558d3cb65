import CSQLite

/// Reads an SQLite file directly, bypassing CloudStore, to check what is really on disk.
public final class RawSQLite {
    private var handle: OpaquePointer?

    /// Opens the file for reading and writing.
    public init(path: String) throws {
        guard sqlite3_open_v2(path, &handle, SQLITE_OPEN_READWRITE, nil) == SQLITE_OK else {
            throw TestFailure("cannot open \(path)")
        }
        sqlite3_busy_timeout(handle, 5_000)
    }

    deinit { sqlite3_close_v2(handle) }

    /// Every row of `sql`, each column as text (NULL as "NULL").
    public func rows(_ sql: String) throws -> [[String]] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK else {
            throw TestFailure("\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
        defer { sqlite3_finalize(statement) }
        var result: [[String]] = []
        while true {
            let code = sqlite3_step(statement)
            if code == SQLITE_DONE { break }
            guard code == SQLITE_ROW else { throw TestFailure("\(String(cString: sqlite3_errmsg(handle))) in \(sql)") }
            result.append(
                (0..<sqlite3_column_count(statement)).map { column in
                    sqlite3_column_text(statement, column).map { String(cString: $0) } ?? "NULL"
                })
        }
        return result
    }

    /// The first column of the first row as an integer.
    public func integer(_ sql: String) throws -> Int64 {
        guard let text = try rows(sql).first?.first, let value = Int64(text) else { throw TestFailure("no integer from \(sql)") }
        return value
    }

    /// Runs statements that return nothing.
    public func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw TestFailure("\(String(cString: sqlite3_errmsg(handle))) in \(sql)")
        }
    }
}
