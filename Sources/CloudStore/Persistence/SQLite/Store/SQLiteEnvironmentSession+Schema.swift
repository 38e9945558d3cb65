extension SQLiteEnvironmentSession {
    // MARK: - Record types

    func saveRecordType(_ definition: RecordTypeDefinition) throws {
        let old = catalog.types[definition.name]
        try SchemaCatalog.validateStorable(definition, replacing: old)

        let typeID: Int64
        if let old {
            typeID = old.id
        } else {
            try connection.statement(
                "INSERT INTO record_types(name, position) VALUES (?, (SELECT coalesce(max(position), 0) + 1 FROM record_types))"
            ).execute([.text(definition.name)])
            typeID = connection.lastInsertRowID
        }
        if old?.definition.grants != definition.grants {
            try connection.statement("DELETE FROM grants WHERE type = ?").execute([.integer(typeID)])
            for (position, grant) in definition.grants.enumerated() {
                try connection.statement("INSERT INTO grants(type, position, role, permissions) VALUES (?, ?, ?, ?)").execute([
                    .integer(typeID), .integer(Int64(position)), .text(grant.role),
                    .text(grant.permissions.map(\.rawValue).joined(separator: ",")),
                ])
            }
        }
        for (position, field) in definition.fields.enumerated() {
            let values: [SQLiteValue] = [
                .integer(Int64(position)), .bool(field.isEncrypted), .text(field.numberPreference?.rawValue),
                .bool(field.has(.queryable)), .bool(field.has(.sortable)), .bool(field.has(.searchable)),
            ]
            if let existing = old?.fields[field.name] {
                guard existing.definition != field || position != old?.definition.fields.firstIndex(of: existing.definition) else {
                    continue
                }
                try connection.statement(
                    """
                    UPDATE fields SET position = ?, encrypted = ?, number_preference = ?, queryable = ?, sortable = ?, searchable = ?
                    WHERE field = ?
                    """
                ).execute(values + [.integer(existing.id)])
            } else {
                try connection.statement(
                    """
                    INSERT INTO fields(position, encrypted, number_preference, queryable, sortable, searchable, type, name, field_type)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """
                ).execute(values + [.integer(typeID), .text(field.name), .text(field.type.wireName)])
            }
        }
        try reloadCatalog(bumpingVersion: true)
        guard let new = catalog.types[definition.name] else {
            throw CloudStoreError.internalError("Record type \(definition.name) vanished while being saved")
        }
        try applyProjections(from: old, to: new)
    }

    func removeField(named name: String, from recordType: String) throws {
        guard let type = catalog.types[recordType], let field = type.fields[name] else {
            throw CloudStoreError.notFound("Record type \(recordType) has no field \(name)")
        }
        // Without its indexes first, so that its slot, index, list rows and words go.
        var cleared = type.definition
        if var definition = cleared.field(name) {
            definition.indexes = []
            cleared.upsert(definition)
        }
        try saveRecordType(cleared)
        try connection.statement("DELETE FROM fields WHERE field = ?").execute([.integer(field.id)])
        try reloadCatalog(bumpingVersion: true)
    }

    func removeRecordType(named name: String) throws {
        guard let type = catalog.types[name] else { throw CloudStoreError.notFound("Record type \(name) does not exist") }
        try saveRecordType(Self.withoutIndexes(type.definition))
        try connection.execute("DROP TABLE IF EXISTS \(type.listTable)")
        try connection.execute("DROP TABLE IF EXISTS \(type.searchTable)")
        for table in ["grants", "fields", "record_types"] {
            try connection.statement("DELETE FROM \(table) WHERE type = ?").execute([.integer(type.id)])
        }
        try reloadCatalog(bumpingVersion: true)
    }

    func replaceSchema(_ schema: Schema) throws {
        for role in catalog.schema.roles where !schema.roles.contains(role) {
            try removeRoleFromEveryone(role)
        }
        try connection.execute("DELETE FROM roles")
        for (position, role) in schema.roles.enumerated() {
            try connection.statement("INSERT INTO roles(name, position) VALUES (?, ?)").execute([.text(role), .integer(Int64(position))])
        }
        // Types and fields the new schema leaves out keep their data; only their indexes go.
        for existing in catalog.schema.recordTypes where schema.recordType(existing.name) == nil {
            try saveRecordType(Self.withoutIndexes(existing))
        }
        for definition in schema.recordTypes {
            var merged = definition
            if let existing = catalog.schema.recordType(definition.name) {
                for field in existing.userFields where definition.field(field.name) == nil {
                    var kept = field
                    kept.indexes = []
                    merged.upsert(kept)
                }
            }
            try saveRecordType(merged)
        }
        try reloadCatalog(bumpingVersion: true)
    }

    func eraseEverything() throws {
        rewritesZones()
        // The tables and indexes record types made for themselves: each type's list table, its
        // full-text table (whose shadow tables go with it) and the partial indexes on records.
        let made = try connection.statement(
            """
            SELECT type, name FROM sqlite_master
            WHERE (type = 'table' AND name GLOB 'rl_[0-9]*' AND name NOT GLOB 'rl_*_*')
               OR (type = 'table' AND name GLOB 'fts_[0-9]*' AND sql LIKE 'CREATE VIRTUAL TABLE%')
               OR (type = 'index' AND name GLOB 'records_t[0-9]*')
            """
        ).rows { ($0.text(0), $0.text(1)) }
        for (kind, name) in made {
            try connection.execute("DROP \(kind == "index" ? "INDEX" : "TABLE") \"\(name)\"")
        }
        for table in [
            "shares", "share_participants", "records", "changes", "zone_log", "subscriptions", "notifications", "notification_deliveries",
            "notification_cursors", "asset_refs", "refs", "zones", "zone_stats", "type_stats", "user_roles", "grants", "fields",
            "record_types", "roles", "record_history", "zone_trash", "history_assets",
        ] {
            try connection.execute("DELETE FROM \(table)")
        }
        try connection.execute("DELETE FROM meta WHERE key GLOB 'zone_log_horizon:*'")
        try connection.execute("UPDATE meta SET value = lower(hex(randomblob(8))) WHERE key = 'incarnation'")
        statsDeltas = [:]
        zoneLogTouches = []
        try reloadCatalog(bumpingVersion: true)
    }

    private static func withoutIndexes(_ definition: RecordTypeDefinition) -> RecordTypeDefinition {
        RecordTypeDefinition(
            name: definition.name,
            fields: definition.fields.map {
                var field = $0; field.indexes = []; return field
            },
            grants: definition.grants)
    }

    private func reloadCatalog(bumpingVersion: Bool) throws {
        if bumpingVersion {
            try connection.statement("UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'schema_version'").execute()
        }
        catalog = try SchemaCatalog.load(from: connection, version: try Self.schemaVersion(on: connection))
    }

    // MARK: - Projections and indexes

    /// Brings the slots and partial indexes of a record type, its `rl_N` and `fts_N`, from `old`'s
    /// indexes to `new`'s: assigns slots, creates and drops indexes, and fills new projections
    /// from the stored records.
    private func applyProjections(from old: SchemaCatalog.RecordType?, to new: SchemaCatalog.RecordType) throws {
        var new = new
        try assignSlots(&new)

        for field in new.orderedFields {
            let indexName = "records_t\(new.id)_f\(field.id)"
            let wanted = field.definition.has(.queryable) || field.definition.has(.sortable)
            if let system = SystemField(rawValue: field.definition.name), wanted {
                // `___recordID` indexes the type's records by zone (and so by key): the scan a query
                // by type alone needs. Names themselves are indexed by `records_by_name`.
                let key = system == .recordID ? "zone" : "zone, \(RecordColumns.column(of: system))"
                try connection.execute("CREATE INDEX IF NOT EXISTS \(indexName) ON records(\(key)) WHERE type = \(new.id)")
            } else if field.isProjected && !field.definition.type.isList {
                try connection.execute(
                    "CREATE INDEX IF NOT EXISTS \(indexName) ON records(zone, \(field.column)) WHERE type = \(new.id)")
            } else {
                try connection.execute("DROP INDEX IF EXISTS \(indexName)")
            }
        }
        if !new.listFields.isEmpty {
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS \(new.listTable)(
                    field INTEGER NOT NULL, zone INTEGER NOT NULL, value, rid INTEGER NOT NULL,
                    PRIMARY KEY(field, zone, value, rid)
                ) WITHOUT ROWID
                """)
        }

        let oldProjected = Set(old?.projectedFields.map(\.id) ?? [])
        let newProjected = Set(new.projectedFields.map(\.id))
        for field in (old?.projectedFields ?? []) where !newProjected.contains(field.id) {
            if field.isListProjected {
                try connection.statement("DELETE FROM \(new.listTable) WHERE field = ?").execute([.integer(field.id)])
            }
            try connection.execute(
                "UPDATE records SET \(field.columns.map { "\($0) = NULL" }.joined(separator: ", ")) WHERE type = \(new.id)")
        }

        let searchChanged = (old?.searchableFields.map(\.id) ?? []) != new.searchableFields.map(\.id)
        if searchChanged {
            try connection.execute("DROP TABLE IF EXISTS \(new.searchTable)")
            if !new.searchableFields.isEmpty {
                let columns = new.searchableFields.map(\.searchColumn).joined(separator: ", ")
                try connection.execute(
                    "CREATE VIRTUAL TABLE \(new.searchTable) USING fts5(\(columns), tokenize = 'unicode61 remove_diacritics 2')")
            }
        }
        connection.clearStatementCache()

        let added = new.projectedFields.filter { !oldProjected.contains($0.id) }
        if !added.isEmpty || (searchChanged && !new.searchableFields.isEmpty) {
            try backfill(added, search: searchChanged, type: new)
        }
        catalog.types[new.definition.name] = new
    }

    /// Gives every projected field of `type` a slot (consecutive for a location's two), the
    /// smallest free among the type's own, adding slot columns to `records` as needed. A field
    /// keeps its slot for good, so dropping and re-adding an index needs no new column.
    private func assignSlots(_ type: inout SchemaCatalog.RecordType) throws {
        var used = Set(type.orderedFields.compactMap { field in field.slot.map { Array($0..<$0 + field.slotWidth) } }.joined())
        var available = Int(
            try connection.statement("SELECT value FROM meta WHERE key = 'slot_columns'").firstRow { $0.text(0) }
                .flatMap { Int($0) } ?? 0)
        for field in type.projectedFields where field.slot == nil {
            var slot = 1
            while (slot..<slot + field.slotWidth).contains(where: used.contains) { slot += 1 }
            used.formUnion(slot..<slot + field.slotWidth)
            while available < slot + field.slotWidth - 1 {
                available += 1
                try connection.execute("ALTER TABLE records ADD COLUMN p\(available)")
            }
            try connection.statement("UPDATE fields SET slot = ? WHERE field = ?").execute([.integer(Int64(slot)), .integer(field.id)])
            type.fields[field.definition.name]?.slot = slot
        }
        try connection.statement("UPDATE meta SET value = ? WHERE key = 'slot_columns'").execute([.text(String(available))])
    }

    /// Fills the slots of `fields` (and the search table, when `search`) for every stored record
    /// of `type`, reading their payloads in batches.
    private func backfill(_ fields: [SchemaCatalog.Field], search: Bool, type: SchemaCatalog.RecordType) throws {
        let search = search && !type.searchableFields.isEmpty
        let assignments = fields.flatMap(\.columns).map { "\($0) = ?" }.joined(separator: ", ")
        var after: Int64 = 0
        while true {
            let batch = try connection.statement(
                "SELECT rid, zone, payload FROM records WHERE type = ? AND rid > ? ORDER BY rid LIMIT 500"
            ).rows([.integer(type.id), .integer(after)]) { row in
                (key: row.integer(0), zone: row.integer(1), fields: try RecordPayloadCodec.decode(row.blob(2)))
            }
            guard let last = batch.last else { return }
            after = last.key
            for entry in batch {
                if !fields.isEmpty {
                    var values: [SQLiteValue] = []
                    for field in fields { appendProjectedValues(of: field, in: entry.fields, to: &values) }
                    values.append(.integer(entry.key))
                    try connection.statement("UPDATE records SET \(assignments) WHERE rid = ?").execute(values)
                }
                for field in fields where field.isListProjected {
                    try insertListElements(key: entry.key, zoneKey: entry.zone, field: field, fields: entry.fields, type: type)
                }
                if search {
                    try insertSearchRow(key: entry.key, fields: entry.fields, type: type)
                }
            }
        }
    }
}
