/// PostgreSQL's record statements: one environment per schema, tables qualified by `schema`
/// (already quoted), `$n` parameters.
struct PostgresRecordTypeDialect: RecordTypeDialect, Hashable {
    /// The environment's schema, quoted.
    let schema: String

    func statements(typeID: Int64, insertColumns: [String], updatedColumns: [String], searchColumns: [String]) -> RecordTypeStatements {
        // A name already taken in the zone inserts nothing and returns no key, as the unique
        // index refuses the row in SQLite.
        let values = (1...insertColumns.count).map { "$\($0)" }.joined(separator: ", ")
        let assignments = updatedColumns.enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
        return RecordTypeStatements(
            insert: """
                INSERT INTO \(schema).records(\(insertColumns.joined(separator: ", "))) VALUES (\(values)) \
                ON CONFLICT (zone, name) DO NOTHING RETURNING rid
                """,
            update: "UPDATE \(schema).records SET \(assignments) WHERE rid = $\(updatedColumns.count + 1)",
            // One row per searchable field holding words: the record's key, the field's id, and
            // the field's folded words separated by spaces.
            searchInsert: """
                INSERT INTO \(schema).fts_\(typeID)(rid, field, words) \
                VALUES ($1, $2, array_to_tsvector(string_to_array($3, ' ')))
                """)
    }
}
