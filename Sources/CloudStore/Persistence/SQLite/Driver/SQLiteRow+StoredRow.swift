extension SQLiteRow: StoredRow {
    /// SQLite stores a flag as 0 or 1.
    func bool(_ column: Int32) -> Bool { integer(column) != 0 }
    func double(_ column: Int32) -> Double { real(column) }
}
