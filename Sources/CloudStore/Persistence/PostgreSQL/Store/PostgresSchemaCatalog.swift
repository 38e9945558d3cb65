extension SchemaCatalog {
    /// Reads the whole schema of the environment in PostgreSQL schema `schema` (unquoted), its
    /// record types precomputing PostgreSQL's statements.
    static func load(from connection: PostgresConnection, schema: String) throws -> SchemaCatalog {
        let quoted = PostgresIdentifier.quote(schema)
        let version = try schemaVersion(on: connection, schema: schema)
        let roles = try connection.execute("SELECT name FROM \(quoted).roles ORDER BY position").map { $0.text(0) }
        let typeRows = try connection.execute("SELECT type, name FROM \(quoted).record_types ORDER BY position").map {
            (id: $0.integer(0), name: $0.text(1))
        }
        let grantRows = try connection.execute("SELECT type, role, permissions FROM \(quoted).grants ORDER BY type, position").map {
            row in (type: row.integer(0), grant: grant(role: row.text(1), permissions: row.text(2)))
        }
        // Ties in position (two processes adding fields to one type at once) fall to the older field.
        let fieldRows = try connection.execute(
            """
            SELECT field, type, name, field_type, encrypted, number_preference, queryable, sortable, searchable, slot
            FROM \(quoted).fields ORDER BY type, position, field
            """
        ).map { row -> FieldRow in
            (
                row.integer(1),
                try field(
                    id: row.integer(0), name: row.text(2), storedType: row.text(3), encrypted: row.bool(4),
                    numberPreference: row.optionalText(5), queryable: row.bool(6), sortable: row.bool(7), searchable: row.bool(8),
                    slot: row.optionalInteger(9))
            )
        }
        return assemble(
            version: version, roles: roles, types: typeRows, grants: grantRows, fields: fieldRows,
            dialect: PostgresRecordTypeDialect(schema: quoted))
    }

    /// The stored schema version of the environment in `schema` (unquoted).
    static func schemaVersion(on connection: PostgresConnection, schema: String) throws -> Int64 {
        try schemaVersion(from: connection.execute(schemaVersionSQL(schema)), schema: schema)
    }

    /// The statement reading the schema version of the environment in `schema` (unquoted).
    static func schemaVersionSQL(_ schema: String) -> String {
        "SELECT value::bigint FROM \(PostgresIdentifier.quote(schema)).meta WHERE key = 'schema_version'"
    }

    /// The schema version in the result of ``schemaVersionSQL(_:)``.
    static func schemaVersion(from result: PostgresResult, schema: String) throws -> Int64 {
        guard let version = result.scalarInteger() else {
            throw CloudStoreError.internalError("The environment schema \(schema) has no schema version")
        }
        return version
    }
}
