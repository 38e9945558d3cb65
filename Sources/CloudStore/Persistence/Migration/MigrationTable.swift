/// One table `migrate-store` copies: its columns as PostgreSQL has them, where SQLite keeps
/// each, and the key both are read back in, for the checksum.
struct MigrationTable: Sendable {
    /// What a column holds, read alike from both databases.
    enum Kind: Sendable {
        case integer
        case real
        case text
        case bytes
        /// `boolean` on PostgreSQL, 0 or 1 on SQLite.
        case bool
    }

    /// A column of the target table.
    struct Column: Sendable {
        /// The column's name on PostgreSQL.
        var name: String
        var kind: Kind
        /// The SQLite expression that reads it (its name, unless the two differ).
        var source: String
        /// What SQLite keeps in it, when that is not `kind` (the copy converts it).
        var sourceKind: Kind
        /// The PostgreSQL expression that reads it back (its quoted name, unless it needs a cast).
        var readBack: String

        init(_ name: String, _ kind: Kind, source: String? = nil, sourceKind: Kind? = nil, readBack: String? = nil) {
            self.name = name
            self.kind = kind
            self.source = source ?? name
            self.sourceKind = sourceKind ?? kind
            self.readBack = readBack ?? PostgresIdentifier.quote(name)
        }
    }

    /// The table's name on PostgreSQL, unqualified.
    var name: String
    /// The SQLite table the rows come from.
    var source: String
    var columns: [Column]
    /// The columns of the table's key, in order: the order rows are read in on both sides.
    var key: [String]
    /// A condition on the rows read back, when only some of the target's rows are copied ones.
    var readBackFilter: String?

    init(_ name: String, source: String? = nil, key: [String], readBackFilter: String? = nil, _ columns: [Column]) {
        self.name = name
        self.source = source ?? name
        self.key = key
        self.readBackFilter = readBackFilter
        self.columns = columns
    }

    /// The key's ORDER BY, text columns in byte order: SQLite's BINARY collation, PostgreSQL's "C".
    func order(sqlite: Bool) -> String {
        key.map { name in
            guard let column = columns.first(where: { $0.name == name }) else { return name }
            if sqlite { return column.kind == .text ? "\(column.source) COLLATE BINARY" : column.source }
            return column.kind == .text ? "\(column.readBack) COLLATE \"C\"" : column.readBack
        }.joined(separator: ", ")
    }

    /// A row of ``sourceQuery``, each column read as SQLite keeps it.
    func sourceValues(of row: SQLiteRow) -> [MigrationValue] {
        columns.indices.map { MigrationValue(row, Int32($0), as: columns[$0].sourceKind) }
    }

    /// A row of ``readBackQuery(schema:)``, each column read as PostgreSQL holds it.
    func readBackValues(of row: PostgresRow) -> [MigrationValue] {
        columns.indices.map { MigrationValue(row, Int32($0), as: columns[$0].kind) }
    }

    /// `SELECT` of the source columns from SQLite, in key order.
    var sourceQuery: String {
        "SELECT \(columns.map(\.source).joined(separator: ", ")) FROM \(source) ORDER BY \(order(sqlite: true))"
    }

    /// `COPY` into the table in `schema` (quoted), naming `extra` columns after the table's own.
    func copyStatement(schema: String, extra: [String] = []) -> String {
        let names = columns.map { PostgresIdentifier.quote($0.name) } + extra
        return "COPY \(schema).\(PostgresIdentifier.quote(name))(\(names.joined(separator: ", "))) FROM STDIN"
    }

    /// `SELECT` of the copied columns from PostgreSQL, in key order.
    func readBackQuery(schema: String) -> String {
        var sql = "SELECT \(columns.map(\.readBack).joined(separator: ", ")) FROM \(schema).\(PostgresIdentifier.quote(name))"
        if let readBackFilter { sql += " WHERE \(readBackFilter)" }
        if !key.isEmpty { sql += " ORDER BY \(order(sqlite: false))" }
        return sql
    }
}
