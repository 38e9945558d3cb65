import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

/// SQLite's "copy the bytes now" destructor, which Swift cannot import as a macro.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A prepared statement. Statements are cached by their connection and reused: binding resets them.
final class SQLiteStatement {
    let handle: OpaquePointer
    let sql: String
    private unowned let connection: SQLiteConnection

    init(connection: SQLiteConnection, sql: String) throws(SQLiteError) {
        var statement: OpaquePointer?
        let code = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard code == SQLITE_OK, let statement else {
            throw connection.error(code: code, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit { sqlite3_finalize(handle) }

    // MARK: - Binding

    /// Resets the statement and binds `values` to its parameters, in order.
    func bind(_ values: [SQLiteValue]) throws(SQLiteError) {
        sqlite3_reset(handle)
        // Parameters left unbound must read as NULL, not as the last execution's values; when
        // every one is bound again (most executions), clearing them first is work for nothing.
        if values.count < Int(sqlite3_bind_parameter_count(handle)) { sqlite3_clear_bindings(handle) }
        for (offset, value) in values.enumerated() {
            try bind(value, at: Int32(offset + 1))
        }
    }

    /// Binds one value to the 1-based parameter `index`.
    func bind(_ value: SQLiteValue, at index: Int32) throws(SQLiteError) {
        let code: Int32
        switch value {
        case .null:
            code = sqlite3_bind_null(handle, index)
        case .integer(let integer):
            code = sqlite3_bind_int64(handle, index, integer)
        case .real(let real):
            code = sqlite3_bind_double(handle, index, real)
        case .text(let text):
            var text = text
            code = text.withUTF8 { buffer in
                sqlite3_bind_text(
                    handle, index, UnsafeRawPointer(buffer.baseAddress)?.assumingMemoryBound(to: CChar.self),
                    Int32(buffer.count), sqliteTransient)
            }
        case .textBytes(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                sqlite3_bind_text(
                    handle, index, buffer.baseAddress?.assumingMemoryBound(to: CChar.self) ?? UnsafePointer(bitPattern: 1),
                    Int32(buffer.count), sqliteTransient)
            }
        case .blob(let bytes):
            code = bytes.withUnsafeBytes { buffer in
                // A zero-length blob must still be a blob, not NULL.
                sqlite3_bind_blob(
                    handle, index, buffer.baseAddress ?? UnsafeRawPointer(bitPattern: 1), Int32(buffer.count), sqliteTransient)
            }
        }
        guard code == SQLITE_OK else { throw connection.error(code: code, sql: sql) }
    }

    // MARK: - Stepping

    /// Advances to the next row; `false` when the statement is done.
    func step() throws(SQLiteError) -> Bool {
        let code = sqlite3_step(handle)
        switch code {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default:
            let error = connection.error(code: code, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Runs the statement to completion with `values` bound, ignoring rows.
    func execute(_ values: [SQLiteValue] = []) throws(SQLiteError) {
        try bind(values)
        while try step() {}
        sqlite3_reset(handle)
    }

    /// Runs the statement with `values` and maps every row.
    func rows<T>(_ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws -> T) throws -> [T] {
        try bind(values)
        defer { sqlite3_reset(handle) }
        var result: [T] = []
        while try step() { result.append(try map(SQLiteRow(statement: handle))) }
        return result
    }

    /// Runs the statement with `values`, handing each row to `body` until it returns false:
    /// for reads that stop when they have enough.
    func each(_ values: [SQLiteValue] = [], _ body: (SQLiteRow) throws -> Bool) throws {
        try bind(values)
        defer { sqlite3_reset(handle) }
        while try step() {
            guard try body(SQLiteRow(statement: handle)) else { return }
        }
    }

    /// Runs the statement with `values` and maps the first row, if any.
    func firstRow<T>(_ values: [SQLiteValue] = [], _ map: (SQLiteRow) throws -> T) throws -> T? {
        try bind(values)
        defer { sqlite3_reset(handle) }
        guard try step() else { return nil }
        return try map(SQLiteRow(statement: handle))
    }

    /// Runs the statement and returns the first column of the first row as an integer.
    func scalarInteger(_ values: [SQLiteValue] = []) throws -> Int64? {
        try firstRow(values) { $0.isNull(0) ? nil : $0.integer(0) } ?? nil
    }
}

/// The current row of a statement being stepped. Valid only until the next step.
struct SQLiteRow {
    let statement: OpaquePointer

    /// Whether column `index` is NULL.
    func isNull(_ index: Int32) -> Bool { sqlite3_column_type(statement, index) == SQLITE_NULL }

    func integer(_ index: Int32) -> Int64 { sqlite3_column_int64(statement, index) }

    func optionalInteger(_ index: Int32) -> Int64? { isNull(index) ? nil : integer(index) }

    func real(_ index: Int32) -> Double { sqlite3_column_double(statement, index) }

    func text(_ index: Int32) -> String {
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        return String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
    }

    func optionalText(_ index: Int32) -> String? { isNull(index) ? nil : text(index) }

    /// The column as text, which is `recent` itself when the bytes are the same: no string is
    /// made, which for a text too long to live in the value is an allocation saved. `recent`
    /// becomes the column's text.
    func text(_ index: Int32, sameAs recent: inout String) -> String {
        guard let pointer = sqlite3_column_text(statement, index) else { return "" }
        let count = Int(sqlite3_column_bytes(statement, index))
        if count > 0, recent.utf8.count == count,
            recent.utf8.withContiguousStorageIfAvailable({ $0.baseAddress.map { memcmp($0, pointer, count) == 0 } ?? false }) == true
        {
            return recent
        }
        recent = String(decoding: UnsafeBufferPointer(start: pointer, count: count), as: UTF8.self)
        return recent
    }

    func blob(_ index: Int32) -> [UInt8] {
        let count = Int(sqlite3_column_bytes(statement, index))
        guard count > 0, let pointer = sqlite3_column_blob(statement, index) else { return [] }
        return Array(UnsafeRawBufferPointer(start: pointer, count: count))
    }

    /// The column as whichever SQLite value it holds.
    func value(_ index: Int32) -> SQLiteValue {
        switch sqlite3_column_type(statement, index) {
        case SQLITE_INTEGER: .integer(integer(index))
        case SQLITE_FLOAT: .real(real(index))
        case SQLITE_TEXT: .text(text(index))
        case SQLITE_BLOB: .blob(blob(index))
        default: .null
        }
    }
}
