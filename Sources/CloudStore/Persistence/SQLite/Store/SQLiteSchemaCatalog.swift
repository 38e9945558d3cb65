extension SchemaCatalog {
    /// Reads the whole schema from `connection`.
    static func load(from connection: SQLiteConnection, version: Int64) throws -> SchemaCatalog {
        let roles = try connection.statement("SELECT name FROM roles ORDER BY position").rows { $0.text(0) }
        let typeRows = try connection.statement("SELECT type, name FROM record_types ORDER BY position").rows {
            (id: $0.integer(0), name: $0.text(1))
        }
        let grantRows = try connection.statement("SELECT type, role, permissions FROM grants ORDER BY type, position").rows {
            row in (type: row.integer(0), grant: grant(role: row.text(1), permissions: row.text(2)))
        }
        let fieldRows = try connection.statement(
            """
            SELECT field, type, name, field_type, encrypted, number_preference, queryable, sortable, searchable, slot
            FROM fields ORDER BY type, position
            """
        ).rows { row -> FieldRow in
            (
                row.integer(1),
                try field(
                    id: row.integer(0), name: row.text(2), storedType: row.text(3), encrypted: row.integer(4) != 0,
                    numberPreference: row.optionalText(5), queryable: row.integer(6) != 0, sortable: row.integer(7) != 0,
                    searchable: row.integer(8) != 0, slot: row.optionalInteger(9))
            )
        }
        return assemble(
            version: version, roles: roles, types: typeRows, grants: grantRows, fields: fieldRows, dialect: SQLiteRecordTypeDialect())
    }
}
