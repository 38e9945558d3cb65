/// SQLite's record statements: one environment per file, tables unqualified, `?` parameters.
struct SQLiteRecordTypeDialect: RecordTypeDialect {
    func statements(typeID: Int64, insertColumns: [String], updatedColumns: [String], searchColumns: [String]) -> RecordTypeStatements {
        let searchColumns = ["rowid"] + searchColumns
        return RecordTypeStatements(
            insert:
                "INSERT INTO records(\(insertColumns.joined(separator: ", "))) VALUES (\(SQLiteValue.placeholders(insertColumns.count)))",
            update: "UPDATE records SET \(updatedColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE rid = ?",
            searchInsert:
                "INSERT INTO fts_\(typeID)(\(searchColumns.joined(separator: ", "))) VALUES (\(SQLiteValue.placeholders(searchColumns.count)))"
        )
    }
}
