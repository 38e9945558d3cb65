extension PostgresEnvironmentSession {
    // MARK: - Record types

    /// A writer of this environment's schema, on this transaction, from this session's catalog.
    func schemaWriter() throws -> PostgresSchemaWriter {
        try PostgresSchemaWriter(connection: connection, schema: schemaName, buildsIndexesLater: buildsIndexesLater)
    }

    func saveRecordType(_ definition: RecordTypeDefinition) throws {
        var writer = try schemaWriter()
        try writer.saveRecordType(definition)
        catalog = writer.catalog
        changedSchema = true
    }

    func removeField(named name: String, from recordType: String) throws {
        var writer = try schemaWriter()
        try writer.removeField(named: name, from: recordType)
        catalog = writer.catalog
        changedSchema = true
    }

    func removeRecordType(named name: String) throws {
        var writer = try schemaWriter()
        try writer.removeRecordType(named: name)
        catalog = writer.catalog
        changedSchema = true
    }

    func replaceSchema(_ schema: Schema) throws {
        var writer = try schemaWriter()
        try writer.replaceSchema(schema)
        catalog = writer.catalog
        changedSchema = true
    }

    // MARK: - Erasing everything

    func eraseEverything() throws {
        let writing = try writing
        // The tables and indexes record types made for themselves.
        let made = try connection.execute(
            """
            SELECT 'TABLE', tablename FROM pg_tables WHERE schemaname = $1 AND (tablename LIKE 'rl\\_%' OR tablename LIKE 'fts\\_%')
            UNION ALL
            SELECT 'INDEX', indexname FROM pg_indexes WHERE schemaname = $1 AND indexname LIKE 'records\\_t%'
            """,
            [.text(schemaName)]
        ).map { ($0.text(0), $0.text(1)) }
        for (kind, name) in made {
            try connection.executeScript("DROP \(kind) IF EXISTS \(namespace).\(PostgresIdentifier.quote(name))")
        }
        for name in [
            "shares", "share_participants", "records", "changes", "zone_log", "database_counters", "subscriptions", "notifications",
            "notification_deliveries", "notification_cursors", "asset_refs", "refs", "zones", "zone_stats", "type_stats", "user_roles",
            "grants", "fields", "record_types", "roles", "record_history", "zone_trash", "history_assets",
        ] {
            try connection.execute("DELETE FROM \(table(name))")
        }
        // A new incarnation expires every token; the schema version moves so every process reloads.
        try connection.execute(
            """
            UPDATE \(table("meta")) SET value = CASE key
                WHEN 'incarnation' THEN md5(random()::text || clock_timestamp()::text)
                WHEN 'slot_columns' THEN value
                ELSE (value::bigint + 1)::text END
            WHERE key IN ('incarnation', 'schema_version', 'zones_generation')
            """)
        statsDeltas = [:]
        writing.pending = PostgresChangeLog.Pending()
        catalog = try SchemaCatalog.load(from: connection, schema: schemaName)
        changedSchema = true
    }
}
