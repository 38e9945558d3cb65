extension StoreMigration {
    /// Copies the catalog's tables, and its settings into the one row the migrations made: the
    /// secret, the change counter, the cluster's identity, and an empty incarnation, so that
    /// the environments' own incarnations alone make their tokens' incarnations, as on SQLite.
    func copyCatalog(_ source: SourceStore, clusterIdentity: String?, _ copier: MigrationCopier) throws {
        let schema = PostgresCatalogMigrations.schema
        try SourceStore.read(source.catalogPath) { sqlite in
            for table in MigrationTables.catalog {
                try copier.copy(table, from: sqlite, into: schema, scope: "catalog")
            }
            let settings = Dictionary(
                try sqlite.statement("SELECT key, value FROM settings").rows { ($0.text(0), $0.text(1)) }, uniquingKeysWith: { $1 })
            guard let secret = settings["secret"], SecureToken.bytes(fromHex: secret) != nil else {
                throw CloudStoreError.internalError("The catalog \(source.catalogPath) has no server secret")
            }
            let counter = Int64(settings["change_counter"] ?? "") ?? 0
            try copier.connection.execute(
                "UPDATE catalog.settings SET secret = $1, change_counter = $2, incarnation = '', cluster_identity = $3",
                [.text(secret), .integer(counter), .text(clusterIdentity ?? "")])
            copier.expect(MigrationTables.settings, rows: [[.text(secret), .integer(counter)]], in: schema, scope: "catalog")
            for (table, column) in MigrationTables.catalogIdentities {
                try continueNumbering(table, column, in: schema, after: 0, on: copier.connection)
            }
        }
    }

    /// Moves the identity sequence of `table.column` in `schema` (quoted or plain) past the
    /// largest copied key and `floor`, so that the next row PostgreSQL numbers continues after them.
    func continueNumbering(_ table: String, _ column: String, in schema: String, after floor: Int64, on connection: PostgresConnection)
        throws
    {
        let relation = "\(schema).\(PostgresIdentifier.quote(table))"
        let largest = max(
            try connection.execute("SELECT max(\(PostgresIdentifier.quote(column))) FROM \(relation)").scalarInteger() ?? 0, floor)
        guard largest > 0 else { return }
        try connection.execute("SELECT setval(pg_get_serial_sequence($1, $2), $3)", [.text(relation), .text(column), .integer(largest)])
    }
}
