/// How one backend writes the statements every save of a record type runs: built once per
/// schema version, in the text its database takes. Each backend has its own type; the catalog
/// (``SchemaCatalog``) they share holds whichever its backend gave.
protocol RecordTypeDialect: Sendable {
    /// The insert into `records` of `insertColumns`, the update of `updatedColumns` by key (the
    /// key last), and the insert of a record's words into the type's search table, whose
    /// columns for the searchable fields are `searchColumns`.
    func statements(typeID: Int64, insertColumns: [String], updatedColumns: [String], searchColumns: [String]) -> RecordTypeStatements
}

/// A record type's precomputed statements.
struct RecordTypeStatements: Sendable {
    /// `INSERT INTO records(...)`.
    var insert: String
    /// `UPDATE records SET ... WHERE rid = ...`.
    var update: String
    /// The insert of a record's search words.
    var searchInsert: String
}
