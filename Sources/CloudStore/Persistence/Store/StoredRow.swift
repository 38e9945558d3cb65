/// A result row as the stored-row decoders read it, by column from 0: SQLite's and PostgreSQL's
/// rows alike, so that one decoder serves both backends.
protocol StoredRow {
    func isNull(_ column: Int32) -> Bool
    func text(_ column: Int32) -> String
    func optionalText(_ column: Int32) -> String?
    func integer(_ column: Int32) -> Int64
    func optionalInteger(_ column: Int32) -> Int64?
    func double(_ column: Int32) -> Double
    func bool(_ column: Int32) -> Bool
    func blob(_ column: Int32) -> [UInt8]
}

extension SQLiteRow: StoredRow {
    /// SQLite stores a flag as 0 or 1.
    func bool(_ column: Int32) -> Bool { integer(column) != 0 }
    func double(_ column: Int32) -> Double { real(column) }
}

extension PostgresRow: StoredRow {
    func isNull(_ column: Int32) -> Bool { isNull(Int(column)) }
    func text(_ column: Int32) -> String { text(Int(column)) }
    func optionalText(_ column: Int32) -> String? { optionalText(Int(column)) }
    func integer(_ column: Int32) -> Int64 { integer(Int(column)) }
    func optionalInteger(_ column: Int32) -> Int64? { optionalInteger(Int(column)) }
    func double(_ column: Int32) -> Double { double(Int(column)) }
    func bool(_ column: Int32) -> Bool { bool(Int(column)) }
    func blob(_ column: Int32) -> [UInt8] { blob(Int(column)) }
}
