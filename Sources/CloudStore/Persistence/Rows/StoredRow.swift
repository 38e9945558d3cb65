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
