/// Builds the indexes an environment's schema needs with `CREATE INDEX CONCURRENTLY`: for
/// production, whose `records` may be large and busy, where a plain `CREATE INDEX` would block
/// every write to the table for the whole build.
///
/// A concurrent build runs outside any transaction (PostgreSQL refuses it inside one), so it comes
/// after the schema change commits; queries meanwhile run without the index and answer the same,
/// only slower. A build that failed or was interrupted leaves an invalid index
/// (`pg_index.indisvalid = false`) that `IF NOT EXISTS` would take for done: invalid indexes are
/// dropped concurrently and built again. Builds of one environment take a session-level
/// advisory lock, so two processes deploying at once never build (or drop) the same index
/// together; the second finds the work done.
enum PostgresConcurrentIndexes {
    /// Builds the missing indexes of the environment in `schema` (unquoted) and rebuilds its
    /// invalid ones; with `waiting` false, does nothing when another process is building them.
    /// Returns the names of the indexes built.
    @discardableResult
    static func build(schema: String, pool: PostgresPool, waiting: Bool = true) throws -> [String] {
        try PostgresError.mapped {
            try pool.withConnection { connection in
                let key = PostgresValue.text("cumulus-index:" + schema)
                if waiting {
                    try connection.execute("SELECT pg_advisory_lock(hashtext($1))", [key])
                } else {
                    let locked = try connection.execute("SELECT pg_try_advisory_lock(hashtext($1))", [key]).first { $0.bool(0) }
                    guard locked == true else { return [] }
                }
                // Released on every path; a connection lost meanwhile releases it with the session.
                defer { _ = try? connection.execute("SELECT pg_advisory_unlock(hashtext($1))", [key]) }
                return try buildUnderLock(schema: schema, on: connection)
            }
        }
    }

    /// ``build(schema:pool:waiting:)`` with the lock held, so the catalog and the indexes read
    /// here are not changing under another build.
    private static func buildUnderLock(schema: String, on connection: PostgresConnection) throws -> [String] {
        let quoted = PostgresIdentifier.quote(schema)
        let wanted = PostgresSchemaWriter.indexes(of: try SchemaCatalog.load(from: connection, schema: schema), schema: quoted)
        let present = try connection.execute(
            """
            SELECT c.relname, i.indisvalid FROM pg_index i
            JOIN pg_class c ON c.oid = i.indexrelid JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE n.nspname = $1
            """, [.text(schema)]
        ).map { (name: $0.text(0), valid: $0.bool(1)) }
        var valid = Set<String>()
        for index in present {
            if index.valid {
                valid.insert(index.name)
            } else {
                try connection.executeScript("DROP INDEX CONCURRENTLY IF EXISTS \(quoted).\(PostgresIdentifier.quote(index.name))")
            }
        }
        var built: [String] = []
        for index in wanted where !valid.contains(index.name) {
            try connection.executeScript("CREATE INDEX CONCURRENTLY IF NOT EXISTS \(index.name) \(index.definition)")
            built.append(index.name)
        }
        return built
    }
}
