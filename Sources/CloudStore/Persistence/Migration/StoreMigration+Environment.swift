extension StoreMigration {
    /// Copies one container environment into its schema: its schema first, whose slots,
    /// indexes, list and search tables PostgreSQL then makes; then zones, records (with their
    /// slot values), the change and zone logs, everything else, and the record history and
    /// trash (with the environment's retention, when it sets one); then the list elements and
    /// words of indexed fields, made from the records; then counters and key sequences, so
    /// that the next write continues every numbering.
    func copyEnvironment(_ environment: SourceStore.EnvironmentFile, _ copier: MigrationCopier) throws {
        guard let path = environment.path else { return }
        let schemaName = PostgresStorageBackend.environmentSchema(environment.container, environment.environment)
        let schema = PostgresIdentifier.quote(schemaName)
        let scope = environment.scope
        let connection = copier.connection
        try SourceStore.read(path) { sqlite in
            for table in MigrationTables.schema {
                try copier.copy(table, from: sqlite, into: schema, scope: scope)
            }
            var writer = try PostgresSchemaWriter(connection: connection, schema: schemaName)
            try writer.buildProjections()
            let catalog = writer.catalog

            try copier.copy(MigrationTables.zones, from: sqlite, into: schema, scope: scope)
            try copyRecords(from: sqlite, into: schema, catalog: catalog, scope: scope, copier)
            for table in MigrationTables.environment + MigrationTables.history {
                try copier.copy(table, from: sqlite, into: schema, scope: scope)
            }
            try copier.copy(MigrationTables.databaseCounters, rows: try databaseCounters(sqlite), into: schema, scope: scope)

            let meta = Dictionary(
                try sqlite.statement("SELECT key, value FROM meta").rows { ($0.text(0), $0.text(1)) }, uniquingKeysWith: { $1 })
            guard let incarnation = meta["incarnation"], !incarnation.isEmpty else {
                throw CloudStoreError.internalError("\(path) has no incarnation")
            }
            // The schema version moves past SQLite's, so that no process takes a catalog it
            // cached before for this one.
            try connection.execute(
                """
                UPDATE \(schema).meta SET value = CASE key WHEN 'incarnation' THEN $1 ELSE (value::bigint + $2)::text END
                WHERE key IN ('incarnation', 'schema_version')
                """, [.text(incarnation), .integer(Int64(meta["schema_version"] ?? "") ?? 0)])
            copier.expect(MigrationTables.incarnation, rows: [[.text("incarnation"), .text(incarnation)]], in: schema, scope: scope)
            if let retention = meta["history_retention"] {
                try copier.copy(
                    MigrationTables.historyRetention, rows: [[.text("history_retention"), .text(retention)]], into: schema, scope: scope)
            }

            for type in catalog.types.values.sorted(by: { $0.id < $1.id }) {
                for field in type.listFields {
                    try copyListElements(of: field, type: type, from: sqlite, into: schema, copier)
                }
                if !type.searchableFields.isEmpty {
                    try copyWords(of: type, from: sqlite, into: schema, copier)
                }
            }

            // Notifications were numbered by AUTOINCREMENT: ids handed out and deleted since are not taken again.
            // Nor are the keys of deleted zones (kept in the trash, or the largest SQLite handed out):
            // a token of a deleted zone never reads the log of a zone made after the move.
            let floors = [
                "notifications": try sqlite.statement("SELECT seq FROM sqlite_sequence WHERE name = 'notifications'").scalarInteger() ?? 0,
                "zones": max(
                    try sqlite.statement("SELECT max(zone_key) FROM zone_trash").scalarInteger() ?? 0,
                    Int64(meta["largest_zone_key"] ?? "") ?? 0),
            ]
            for (table, column) in MigrationTables.environmentIdentities {
                try continueNumbering(table, column, in: schema, after: floors[table] ?? 0, on: connection)
            }
        }
    }

    /// Copies the records, each row with the slot columns PostgreSQL keeps its indexed fields'
    /// values in, worked out from its payload as a save would.
    private func copyRecords(
        from sqlite: SQLiteConnection, into schema: String, catalog: SchemaCatalog, scope: String, _ copier: MigrationCopier
    ) throws {
        let table = MigrationTables.records
        let slotCount = catalog.types.values.flatMap(\.projectedFields).map { ($0.slot ?? 0) + $0.slotWidth - 1 }.max() ?? 0
        let typesByID = Dictionary(uniqueKeysWithValues: catalog.types.values.map { ($0.id, $0) })
        let payloadIndex = table.columns.firstIndex { $0.name == "payload" }!
        let typeIndex = table.columns.firstIndex { $0.name == "type" }!
        let slotColumns = (0..<slotCount).map { "p\($0 + 1)" }
        try copier.copy(table, into: schema, scope: scope, extraColumns: slotColumns) { rows in
            try sqlite.statement(table.sourceQuery).each { row in
                let values = table.sourceValues(of: row)
                var slots = [PostgresValue](repeating: .null, count: slotCount)
                if let typeID = values[typeIndex].integer, let type = typesByID[typeID], !type.projectedFields.isEmpty,
                    case .bytes(let payload) = values[payloadIndex]
                {
                    let fields = try RecordPayloadCodec.decode(payload)
                    for field in type.projectedFields {
                        var fieldValues: [PostgresValue] = []
                        PostgresProjections.appendSlotValues(of: field, in: fields, to: &fieldValues)
                        for (offset, value) in fieldValues.enumerated() { slots[(field.slot ?? 1) - 1 + offset] = value }
                    }
                }
                try rows.send(values, extra: slots)
                return true
            }
        }
    }

    /// Copies the elements of list field `field` of `type` into its list table.
    private func copyListElements(
        of field: SchemaCatalog.Field, type: SchemaCatalog.RecordType, from sqlite: SQLiteConnection, into schema: String,
        _ copier: MigrationCopier
    ) throws {
        let table = PostgresProjections.listTable(type, field)
        try copyingPayloads(of: type, from: sqlite, into: "COPY \(schema).\(table)(zone, value, rid) FROM STDIN", copier) {
            key, zone, fields, writer in
            for element in PostgresProjections.listElements(of: field, in: fields) {
                writer.integer(zone)
                writer.value(element)
                writer.integer(key)
                try writer.endRow()
            }
        }
    }

    /// Copies the words of `type`'s searchable fields into its search table, through a
    /// temporary table: the words become a `tsvector` as a save makes them.
    private func copyWords(of type: SchemaCatalog.RecordType, from sqlite: SQLiteConnection, into schema: String, _ copier: MigrationCopier)
        throws
    {
        let connection = copier.connection
        try connection.executeScript(
            """
            CREATE TEMPORARY TABLE IF NOT EXISTS migration_words(rid bigint, field bigint, words text) ON COMMIT DROP;
            TRUNCATE migration_words
            """)
        try copyingPayloads(of: type, from: sqlite, into: "COPY migration_words(rid, field, words) FROM STDIN", copier) {
            key, _, fields, writer in
            for field in type.searchableFields {
                guard let words = PostgresProjections.searchWords(of: field, in: fields) else { continue }
                writer.integer(key)
                writer.integer(field.id)
                writer.text(words)
                try writer.endRow()
            }
        }
        try connection.execute(
            """
            INSERT INTO \(schema).\(PostgresProjections.searchTable(type))(rid, field, words)
            SELECT rid, field, array_to_tsvector(string_to_array(words, ' ')) FROM migration_words
            """)
    }

    /// Runs one COPY of rows `body` makes from each record of `type`: its key, zone and fields.
    private func copyingPayloads(
        of type: SchemaCatalog.RecordType, from sqlite: SQLiteConnection, into copy: String, _ copier: MigrationCopier,
        _ body: (Int64, Int64, [String: FieldValue], PostgresCopyWriter) throws -> Void
    ) throws {
        try copier.copyStatement(copy, what: "the indexed fields of \(type.definition.name)") { writer in
            try sqlite.statement("SELECT rid, zone, payload FROM records WHERE type = ? ORDER BY rid").each([.integer(type.id)]) { row in
                try body(row.integer(0), row.integer(1), try RecordPayloadCodec.decode(row.blob(2)), writer)
                return true
            }
        }
    }

    /// Each database's zone log counter: the largest sequence of its zone log, or its horizon
    /// (the newest zone tombstone forgotten, which SQLite keeps in `meta`) when that is larger.
    private func databaseCounters(_ sqlite: SQLiteConnection) throws -> [[MigrationValue]] {
        struct Database: Hashable, Comparable {
            var scope: Int64
            var owner: String
            // Owners in byte order, as PostgreSQL's "C" collation reads them back.
            static func < (a: Self, b: Self) -> Bool {
                a.scope != b.scope ? a.scope < b.scope : a.owner.utf8.lexicographicallyPrecedes(b.owner.utf8)
            }
        }
        var counters: [Database: (last: Int64, horizon: Int64)] = [:]
        try sqlite.statement("SELECT scope, owner, max(seq) FROM zone_log GROUP BY scope, owner").each { row in
            counters[Database(scope: row.integer(0), owner: row.text(1)), default: (0, 0)].last = row.integer(2)
            return true
        }
        let prefix = "zone_log_horizon:"
        try sqlite.statement("SELECT key, CAST(value AS INTEGER) FROM meta WHERE key GLOB 'zone_log_horizon:*'").each { row in
            // The key is `zone_log_horizon:<scope>:<owner>`; an owner may hold colons, a scope does not.
            let rest = row.text(0).dropFirst(prefix.count)
            guard let colon = rest.firstIndex(of: ":"), let scope = Int64(rest[..<colon]) else { return true }
            let database = Database(scope: scope, owner: String(rest[rest.index(after: colon)...]))
            counters[database, default: (0, 0)].horizon = row.integer(1)
            return true
        }
        return counters.keys.sorted().map { database in
            let counter = counters[database]!
            return [
                .integer(database.scope), .text(database.owner), .integer(max(counter.last, counter.horizon)), .integer(counter.horizon),
            ]
        }
    }
}
