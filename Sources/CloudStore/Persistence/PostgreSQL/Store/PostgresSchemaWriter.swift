/// Changes the schema of one environment kept in a PostgreSQL schema: record types, fields and
/// their indexes, security roles and the roles users hold.
///
/// Every change takes `pg_advisory_xact_lock` keyed on the environment's schema name and then
/// reads the catalog again, so that two processes saving the same new field one after the other
/// leave one field with one slot: the second finds the field there and has nothing to do.
/// PostgreSQL's DDL is transactional, so a failed save leaves no half-made type. A change runs
/// in the connection's open transaction, or in one of its own when none is open.
///
/// Indexes of `records` and of the search tables are built with plain `CREATE INDEX` in the
/// transaction, which blocks writes to the table while it runs: right for development's
/// just-in-time schema on small tables. With `buildsIndexesLater` (production, whose tables may
/// be large and busy) the transaction only drops the indexes that go; the new ones are built
/// after it commits, concurrently (``PostgresConcurrentIndexes``).
struct PostgresSchemaWriter {
    /// The connection the writer works on.
    let connection: PostgresConnection
    /// The environment's PostgreSQL schema, unquoted.
    let schema: String
    /// The schema's quoted name.
    private let quoted: String
    /// Whether new indexes are left for ``PostgresConcurrentIndexes`` to build after the commit.
    private let buildsIndexesLater: Bool
    /// The catalog as this writer last read or wrote it.
    private(set) var catalog: SchemaCatalog

    /// A writer for the environment in `schema` (unquoted), with its catalog read.
    init(connection: PostgresConnection, schema: String, buildsIndexesLater: Bool = false) throws {
        self.connection = connection
        self.schema = schema
        self.buildsIndexesLater = buildsIndexesLater
        quoted = PostgresIdentifier.quote(schema)
        catalog = try SchemaCatalog.load(from: connection, schema: schema)
    }

    // MARK: - Record types

    /// Creates or changes a record type: its grants, its fields (added, or their indexes
    /// changed; fields left out keep their data) and the slots, indexes, list tables and
    /// search rows its indexes need, filled from the stored records.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a field whose type changes, or an index
    ///   its type cannot carry.
    mutating func saveRecordType(_ definition: RecordTypeDefinition) throws {
        try underSchemaLock { writer in try writer.save(definition) }
    }

    /// Replaces the whole schema: roles (users lose the roles that go), and record types. Types
    /// and fields the new schema leaves out keep their data; only their indexes go.
    mutating func replaceSchema(_ schema: Schema) throws {
        try underSchemaLock { writer in
            for role in writer.catalog.schema.roles where !schema.roles.contains(role) {
                try writer.removeRoleFromEveryone(role)
            }
            try writer.connection.execute("DELETE FROM \(writer.quoted).roles")
            for (position, role) in schema.roles.enumerated() {
                try writer.connection.execute(
                    "INSERT INTO \(writer.quoted).roles(name, position) VALUES ($1, $2)", [.text(role), .integer(position)])
            }
            for existing in writer.catalog.schema.recordTypes where schema.recordType(existing.name) == nil {
                try writer.save(Self.withoutIndexes(existing))
            }
            for definition in schema.recordTypes {
                var merged = definition
                if let existing = writer.catalog.schema.recordType(definition.name) {
                    for field in existing.userFields where definition.field(field.name) == nil {
                        var kept = field
                        kept.indexes = []
                        merged.upsert(kept)
                    }
                }
                try writer.save(merged)
            }
            try writer.reloadCatalog(bumpingVersion: true)
        }
    }

    /// Removes a field of a record type: its indexes and projections go first, then the field.
    mutating func removeField(named name: String, from recordType: String) throws {
        try underSchemaLock { writer in
            guard let type = writer.catalog.types[recordType], let field = type.fields[name] else {
                throw CloudStoreError.notFound("Record type \(recordType) has no field \(name)")
            }
            var cleared = type.definition
            if var definition = cleared.field(name) {
                definition.indexes = []
                cleared.upsert(definition)
            }
            try writer.save(cleared)
            try writer.connection.execute("DELETE FROM \(writer.quoted).fields WHERE field = $1", [.integer(field.id)])
            try writer.reloadCatalog(bumpingVersion: true)
        }
    }

    /// Removes a record type with its fields and grants; its indexes, list tables and search
    /// table go first.
    mutating func removeRecordType(named name: String) throws {
        try underSchemaLock { writer in
            guard let type = writer.catalog.types[name] else { throw CloudStoreError.notFound("Record type \(name) does not exist") }
            try writer.save(Self.withoutIndexes(type.definition))
            try writer.connection.executeScript("DROP TABLE IF EXISTS \(writer.quoted).\(PostgresProjections.searchTable(type))")
            for table in ["grants", "fields", "record_types"] {
                try writer.connection.execute("DELETE FROM \(writer.quoted).\(table) WHERE type = $1", [.integer(type.id)])
            }
            try writer.reloadCatalog(bumpingVersion: true)
        }
    }

    /// Runs `body` holding the environment's schema lock, on the catalog as it is once the lock
    /// is held; in the open transaction, or in a new one.
    private mutating func underSchemaLock(_ body: (inout PostgresSchemaWriter) throws -> Void) throws {
        func locked(_ writer: inout PostgresSchemaWriter) throws {
            try writer.connection.execute(
                "SELECT pg_advisory_xact_lock(hashtext('cumulus-schema:' || $1::text))", [.text(writer.schema)])
            try writer.reloadCatalog(bumpingVersion: false)
            try body(&writer)
        }
        if connection.inTransaction {
            try locked(&self)
        } else {
            var copy = self
            try connection.transaction { try locked(&copy) }
            self = copy
        }
    }

    /// Makes the slots, indexes, list tables and search tables of every record type, as if
    /// each had just been created: for a schema whose rows were copied in, before its records.
    mutating func buildProjections() throws {
        try underSchemaLock { writer in
            for type in writer.catalog.types.values.sorted(by: { $0.id < $1.id }) {
                try writer.applyProjections(from: nil, to: type)
            }
        }
    }

    private static func withoutIndexes(_ definition: RecordTypeDefinition) -> RecordTypeDefinition {
        RecordTypeDefinition(
            name: definition.name,
            fields: definition.fields.map {
                var field = $0; field.indexes = []; return field
            },
            grants: definition.grants)
    }

    /// ``saveRecordType(_:)`` with the lock held.
    private mutating func save(_ definition: RecordTypeDefinition) throws {
        let old = catalog.types[definition.name]
        try SchemaCatalog.validateStorable(definition, replacing: old)
        var changed = false

        let typeID: Int64
        if let old {
            typeID = old.id
        } else {
            typeID =
                try connection.execute(
                    """
                    INSERT INTO \(quoted).record_types(name, position) \
                    VALUES ($1, (SELECT coalesce(max(position), 0) + 1 FROM \(quoted).record_types)) RETURNING type
                    """, [.text(definition.name)]
                ).scalarInteger() ?? 0
            changed = true
        }
        if old?.definition.grants != definition.grants {
            try connection.execute("DELETE FROM \(quoted).grants WHERE type = $1", [.integer(typeID)])
            for (position, grant) in definition.grants.enumerated() {
                try connection.execute(
                    "INSERT INTO \(quoted).grants(type, position, role, permissions) VALUES ($1, $2, $3, $4)",
                    [
                        .integer(typeID), .integer(position), .text(grant.role),
                        .text(grant.permissions.map(\.rawValue).joined(separator: ",")),
                    ])
            }
            changed = true
        }
        for (position, field) in definition.fields.enumerated() {
            let values: [PostgresValue] = [
                .integer(position), .bool(field.isEncrypted), .text(field.numberPreference?.rawValue),
                .bool(field.has(.queryable)), .bool(field.has(.sortable)), .bool(field.has(.searchable)),
            ]
            if let existing = old?.fields[field.name] {
                guard existing.definition != field || position != old?.definition.fields.firstIndex(of: existing.definition) else {
                    continue
                }
                try connection.execute(
                    """
                    UPDATE \(quoted).fields SET position = $1, encrypted = $2, number_preference = $3, queryable = $4, sortable = $5, \
                    searchable = $6 WHERE field = $7
                    """, values + [.integer(existing.id)])
            } else {
                try connection.execute(
                    """
                    INSERT INTO \(quoted).fields(position, encrypted, number_preference, queryable, sortable, searchable, type, name, field_type) \
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                    """, values + [.integer(typeID), .text(field.name), .text(field.type.wireName)])
            }
            changed = true
        }
        // Nothing new, as when another process saved the same change first: no version to move.
        guard changed else { return }
        try reloadCatalog(bumpingVersion: true)
        guard let new = catalog.types[definition.name] else {
            throw CloudStoreError.internalError("Record type \(definition.name) vanished while being saved")
        }
        try applyProjections(from: old, to: new)
    }

    private mutating func reloadCatalog(bumpingVersion: Bool) throws {
        if bumpingVersion {
            try connection.execute(
                "UPDATE \(quoted).meta SET value = (value::bigint + 1)::text WHERE key = 'schema_version'")
        }
        catalog = try SchemaCatalog.load(from: connection, schema: schema)
    }

    // MARK: - Projections and indexes

    /// Brings the slots and partial indexes of a record type, its list tables and search rows,
    /// from `old`'s indexes to `new`'s: assigns slots, creates and drops indexes and tables, and
    /// fills new projections from the stored records.
    private mutating func applyProjections(from old: SchemaCatalog.RecordType?, to new: SchemaCatalog.RecordType) throws {
        var new = new
        try assignSlots(&new)

        for field in new.orderedFields {
            if let index = Self.recordsIndex(of: field, in: new, schema: quoted) {
                try create(index)
            } else {
                try connection.executeScript("DROP INDEX IF EXISTS \(quoted).\(Self.recordsIndexName(of: field, in: new))")
            }
        }
        for field in new.listFields {
            let table = PostgresProjections.listTable(new, field)
            let kind = PostgresColumnKind.element(of: field.definition.type.scalar)
            try connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS \(quoted).\(table)(
                    zone bigint NOT NULL, value \(kind.sqlType) NOT NULL, rid bigint NOT NULL,
                    PRIMARY KEY(zone, value, rid)
                );
                CREATE INDEX IF NOT EXISTS \(table)_by_rid ON \(quoted).\(table)(rid);
                """)
        }

        let oldProjected = Set(old?.projectedFields.map(\.id) ?? [])
        let newProjected = Set(new.projectedFields.map(\.id))
        for field in (old?.projectedFields ?? []) where !newProjected.contains(field.id) {
            if field.isListProjected {
                try connection.executeScript("DROP TABLE IF EXISTS \(quoted).\(PostgresProjections.listTable(new, field))")
            }
            try connection.execute(
                "UPDATE \(quoted).records SET \(field.columns.map { "\($0) = NULL" }.joined(separator: ", ")) WHERE type = \(new.id)")
        }

        // Words: one table per type, a row per record and searchable field, and a GIN index per
        // field over its rows, so that a search reads only its field's words.
        let searchTable = PostgresProjections.searchTable(new)
        let oldSearchable = Set(old?.searchableFields.map(\.id) ?? [])
        let newSearchable = Set(new.searchableFields.map(\.id))
        if new.searchableFields.isEmpty {
            try connection.executeScript("DROP TABLE IF EXISTS \(quoted).\(searchTable)")
        } else {
            try connection.executeScript(
                """
                CREATE TABLE IF NOT EXISTS \(quoted).\(searchTable)(
                    rid bigint NOT NULL, field bigint NOT NULL, words tsvector NOT NULL, PRIMARY KEY(rid, field)
                )
                """)
            for field in old?.searchableFields ?? [] where !newSearchable.contains(field.id) {
                try connection.execute("DELETE FROM \(quoted).\(searchTable) WHERE field = $1", [.integer(field.id)])
                try connection.executeScript("DROP INDEX IF EXISTS \(quoted).\(searchTable)_f\(field.id)")
            }
            for field in new.searchableFields {
                try create(Self.searchIndex(of: field, in: new, schema: quoted))
            }
        }

        let added = new.projectedFields.filter { !oldProjected.contains($0.id) }
        let addedSearchable = new.searchableFields.filter { !oldSearchable.contains($0.id) }
        if !added.isEmpty || !addedSearchable.isEmpty {
            try backfill(added, searchable: addedSearchable, type: new)
        }
        catalog.types[new.definition.name] = new
    }

    /// Builds `index` now, in the transaction; or leaves it for after the commit.
    private func create(_ index: Index) throws {
        guard !buildsIndexesLater else { return }
        try connection.executeScript("CREATE INDEX IF NOT EXISTS \(index.name) \(index.definition)")
    }

    // MARK: - The indexes a schema needs

    /// An index of `records` or of a search table: its name (unique in the environment's schema,
    /// unquoted) and what follows the name in `CREATE INDEX`.
    struct Index: Hashable, Sendable {
        var name: String
        var definition: String
    }

    /// Every index the record types of `catalog` need, for the environment in `schema` (quoted).
    static func indexes(of catalog: SchemaCatalog, schema: String) -> [Index] {
        catalog.types.values.sorted { $0.id < $1.id }.flatMap { type in
            type.orderedFields.compactMap { recordsIndex(of: $0, in: type, schema: schema) }
                + type.searchableFields.map { searchIndex(of: $0, in: type, schema: schema) }
        }
    }

    private static func recordsIndexName(of field: SchemaCatalog.Field, in type: SchemaCatalog.RecordType) -> String {
        "records_t\(type.id)_f\(field.id)"
    }

    /// The index of `records` that `field` needs, if any. Indexes end in the record key so that
    /// an index serves a sort and its ties (PostgreSQL indexes do not end in the row's key as
    /// SQLite's do); NULLs first, as SQLite sorts them.
    private static func recordsIndex(of field: SchemaCatalog.Field, in type: SchemaCatalog.RecordType, schema: String) -> Index? {
        let name = recordsIndexName(of: field, in: type)
        let wanted = field.definition.has(.queryable) || field.definition.has(.sortable)
        if let system = SystemField(rawValue: field.definition.name), wanted {
            // `___recordID` indexes the type's records by zone (and so by key): the scan a query
            // by type alone needs. Names themselves are indexed by `records(zone, name)`.
            let key = system == .recordID ? "zone, rid" : "zone, \(RecordColumns.column(of: system)), rid"
            return Index(name: name, definition: "ON \(schema).records(\(key)) WHERE type = \(type.id)")
        } else if field.isProjected && !field.definition.type.isList {
            return Index(name: name, definition: "ON \(schema).records(zone, \(field.column) NULLS FIRST, rid) WHERE type = \(type.id)")
        }
        return nil
    }

    /// The index over a searchable field's rows of its type's search table, so that a search
    /// reads only its field's words.
    private static func searchIndex(of field: SchemaCatalog.Field, in type: SchemaCatalog.RecordType, schema: String) -> Index {
        let table = PostgresProjections.searchTable(type)
        return Index(name: "\(table)_f\(field.id)", definition: "ON \(schema).\(table) USING gin(words) WHERE field = \(field.id)")
    }

    /// The slot columns `records` has, in order (`p1` first), each with its kind.
    private func slotColumns() throws -> [PostgresColumnKind] {
        let rows = try connection.execute(
            """
            SELECT substr(attname::text, 2)::bigint, format_type(atttypid, atttypmod) FROM pg_attribute
            WHERE attrelid = $1::regclass AND attnum > 0 AND NOT attisdropped AND attname::text ~ '^p[0-9]+$'
            ORDER BY 1
            """, [.text("\(quoted).records")]
        ).map { row in (slot: row.integer(0), kind: PostgresColumnKind(formattedType: row.text(1))) }
        var columns: [PostgresColumnKind] = []
        for row in rows {
            guard row.slot == Int64(columns.count + 1), let kind = row.kind else {
                throw CloudStoreError.internalError("The slot column p\(row.slot) of \(schema).records is not what slots are made of")
            }
            columns.append(kind)
        }
        return columns
    }

    /// Gives every projected field of `type` a slot (consecutive for a location's two): the
    /// smallest free among the type's own whose columns have the field's kind, adding slot
    /// columns to `records` as needed. A field keeps its slot for good, so dropping and adding
    /// an index again needs no new column.
    private func assignSlots(_ type: inout SchemaCatalog.RecordType) throws {
        var used = Set(type.orderedFields.compactMap { field in field.slot.map { Array($0..<$0 + field.slotWidth) } }.joined())
        var columns = try slotColumns()
        for field in type.projectedFields where field.slot == nil {
            let kind = PostgresColumnKind.slot(of: field.definition)
            func fits(_ slot: Int) -> Bool { !used.contains(slot) && (slot > columns.count || columns[slot - 1] == kind) }
            var slot = 1
            while !(slot..<slot + field.slotWidth).allSatisfy(fits) { slot += 1 }
            used.formUnion(slot..<slot + field.slotWidth)
            while columns.count < slot + field.slotWidth - 1 {
                columns.append(kind)
                try connection.executeScript("ALTER TABLE \(quoted).records ADD COLUMN p\(columns.count) \(kind.sqlType)")
            }
            try connection.execute("UPDATE \(quoted).fields SET slot = $1 WHERE field = $2", [.integer(slot), .integer(field.id)])
            type.fields[field.definition.name]?.slot = slot
        }
        try connection.execute(
            "UPDATE \(quoted).meta SET value = $1 WHERE key = 'slot_columns'", [.text(String(columns.count))])
    }

    /// Fills the slots and list tables of `fields`, and the search rows of `searchable`, for
    /// every stored record of `type`, reading their payloads in batches.
    private func backfill(_ fields: [SchemaCatalog.Field], searchable: [SchemaCatalog.Field], type: SchemaCatalog.RecordType) throws {
        var after: Int64 = 0
        while true {
            let batch = try connection.execute(
                "SELECT rid, zone, payload FROM \(quoted).records WHERE type = $1 AND rid > $2 ORDER BY rid LIMIT 500",
                [.integer(type.id), .integer(after)]
            ).map { row in (key: row.integer(0), zone: row.integer(1), fields: try RecordPayloadCodec.decode(row.blob(2))) }
            guard let last = batch.last else { return }
            after = last.key
            for entry in batch {
                try PostgresProjections.writeSlots(of: fields, in: entry.fields, key: entry.key, on: connection, schema: quoted)
                for field in fields where field.isListProjected {
                    try PostgresProjections.insertListElements(
                        key: entry.key, zone: entry.zone, field: field, fields: entry.fields, type: type, on: connection, schema: quoted)
                }
                try PostgresProjections.insertSearchRows(
                    key: entry.key, fields: entry.fields, type: type, searchable: searchable, on: connection)
            }
        }
    }

    // MARK: - Roles held by users

    /// The custom roles `user` holds.
    func roles(of user: String) throws -> Set<String> {
        Set(try connection.execute("SELECT role FROM \(quoted).user_roles WHERE \"user\" = $1", [.text(user)]).map { $0.text(0) })
    }

    /// Every user holding custom roles, with their roles.
    func roleAssignments() throws -> [String: Set<String>] {
        var assignments: [String: Set<String>] = [:]
        let rows = try connection.execute("SELECT \"user\", role FROM \(quoted).user_roles ORDER BY \"user\", role").map {
            ($0.text(0), $0.text(1))
        }
        for (user, role) in rows { assignments[user, default: []].insert(role) }
        return assignments
    }

    /// Gives `user` exactly `roles`.
    func setRoles(_ roles: Set<String>, of user: String) throws {
        try connection.execute("DELETE FROM \(quoted).user_roles WHERE \"user\" = $1", [.text(user)])
        for role in roles.sorted() {
            try connection.execute("INSERT INTO \(quoted).user_roles(\"user\", role) VALUES ($1, $2)", [.text(user), .text(role)])
        }
    }

    /// Takes a role away from every user: the role left the schema.
    func removeRoleFromEveryone(_ role: String) throws {
        try connection.execute("DELETE FROM \(quoted).user_roles WHERE role = $1", [.text(role)])
    }
}
