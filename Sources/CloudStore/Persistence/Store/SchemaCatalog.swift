/// The schema of an environment file together with storage's ids for its types and fields and
/// the state of their projections. Loaded once per schema version and shared between threads.
struct SchemaCatalog: Sendable {
    /// A field with its storage id.
    struct Field: Hashable, Sendable {
        var id: Int64
        var definition: FieldDefinition
        /// The first slot column holding the field's projection (`p<slot>`), once it has one.
        var slot: Int?
        /// Whether this is a system field; kept so hot paths need not look the name up.
        let isSystem: Bool

        init(id: Int64, definition: FieldDefinition, slot: Int?) {
            self.id = id
            self.definition = definition
            self.slot = slot
            isSystem = definition.isSystem
        }

        /// Whether the field's value is kept in its slot: it is QUERYABLE or SORTABLE.
        var isProjected: Bool { !isSystem && (definition.indexes.contains(.queryable) || definition.indexes.contains(.sortable)) }
        /// Whether the field's elements are kept in `rl_N`.
        var isListProjected: Bool { isProjected && definition.type.isList }
        /// Whether the field is a column of `fts_N`.
        var isSearchable: Bool { !isSystem && definition.indexes.contains(.searchable) && definition.type.scalar == .string }
        /// How many slot columns the field takes: two for a location (latitude, longitude).
        var slotWidth: Int { definition.type == .location ? 2 : 1 }
        /// The column of `records` holding the field (for a location, its latitude).
        var column: String { "p\(slot ?? 0)" }
        /// The longitude column of a location field.
        var longitudeColumn: String { "p\((slot ?? 0) + 1)" }
        /// The columns of `records` holding the field.
        var columns: [String] { definition.type == .location ? [column, longitudeColumn] : [column] }
        /// The column name in `fts_N`.
        var searchColumn: String { "f\(id)" }
    }

    /// A record type with its storage id and fields, and what writes to it need, worked out
    /// once per schema version rather than on every save.
    struct RecordType: Sendable {
        /// What the type holds, shared by its copies: every save and query looks its type up,
        /// and a copy is then one reference where the dozen arrays and strings were each
        /// retained and released. Changed only while a schema is edited, by replacing it.
        private final class Storage: Sendable {
            let id: Int64
            let definition: RecordTypeDefinition
            let fields: [String: Field]
            let orderedFields: [Field]
            let projectedFields: [Field]
            let listFields: [Field]
            let searchableFields: [Field]
            let insertSQL: String
            let updateSQL: String
            let searchInsertSQL: String

            let dialect: Dialect

            init(id: Int64, definition: RecordTypeDefinition, fields: [String: Field], dialect: Dialect) {
                self.id = id
                self.definition = definition
                self.fields = fields
                self.dialect = dialect
                orderedFields = definition.fields.compactMap { fields[$0.name] }
                projectedFields = orderedFields.filter(\.isProjected)
                listFields = projectedFields.filter(\.isListProjected)
                searchableFields = orderedFields.filter(\.isSearchable)
                let slots = projectedFields.flatMap(\.columns)
                let insertColumns = RecordType.recordColumns + slots
                switch dialect {
                case .sqlite:
                    insertSQL = "INSERT INTO records(\(insertColumns.joined(separator: ", "))) VALUES (\(SQLiteValue.placeholders(insertColumns.count)))"
                    let assignments = (RecordType.updatedColumns + slots).map { "\($0) = ?" }.joined(separator: ", ")
                    updateSQL = "UPDATE records SET \(assignments) WHERE rid = ?"
                    let searchColumns = ["rowid"] + searchableFields.map(\.searchColumn)
                    searchInsertSQL = "INSERT INTO fts_\(id)(\(searchColumns.joined(separator: ", "))) VALUES (\(SQLiteValue.placeholders(searchColumns.count)))"
                case .postgres(let schema):
                    // A name already taken in the zone inserts nothing and returns no key, as the
                    // unique index refuses the row in SQLite.
                    let values = (1...insertColumns.count).map { "$\($0)" }.joined(separator: ", ")
                    insertSQL = """
                        INSERT INTO \(schema).records(\(insertColumns.joined(separator: ", "))) VALUES (\(values)) \
                        ON CONFLICT (zone, name) DO NOTHING RETURNING rid
                        """
                    let updated = RecordType.updatedColumns + slots
                    let assignments = updated.enumerated().map { "\($1) = $\($0 + 1)" }.joined(separator: ", ")
                    updateSQL = "UPDATE \(schema).records SET \(assignments) WHERE rid = $\(updated.count + 1)"
                    // One row per searchable field holding words: the record's key, the field's
                    // id, and the field's folded words separated by spaces.
                    searchInsertSQL = """
                        INSERT INTO \(schema).fts_\(id)(rid, field, words) \
                        VALUES ($1, $2, array_to_tsvector(string_to_array($3, ' ')))
                        """
                }
            }
        }

        private var storage: Storage

        var id: Int64 { storage.id }
        var definition: RecordTypeDefinition { storage.definition }
        var fields: [String: Field] {
            get { storage.fields }
            set { storage = Storage(id: id, definition: definition, fields: newValue, dialect: storage.dialect) }
        }
        /// The SQL dialect of the statements below.
        var dialect: Dialect { storage.dialect }

        /// Fields in definition order.
        var orderedFields: [Field] { storage.orderedFields }
        /// Fields projected to slot columns, in definition order.
        var projectedFields: [Field] { storage.projectedFields }
        /// Projected list fields, in definition order.
        var listFields: [Field] { storage.listFields }
        /// Fields indexed for token search, in definition order.
        var searchableFields: [Field] { storage.searchableFields }
        /// `INSERT INTO records(...)` with the type's slot columns (on PostgreSQL, returning the
        /// new key, or no row when the name is taken).
        var insertSQL: String { storage.insertSQL }
        /// `UPDATE records SET ... WHERE rid = ?` with the type's slot columns, the key last.
        var updateSQL: String { storage.updateSQL }
        /// `INSERT INTO fts_N(rowid, ...)`; on PostgreSQL one field's row: key, field id, words.
        var searchInsertSQL: String { storage.searchInsertSQL }

        init(id: Int64, definition: RecordTypeDefinition, fields: [String: Field], dialect: Dialect = .sqlite) {
            storage = Storage(id: id, definition: definition, fields: fields, dialect: dialect)
        }

        var listTable: String { "rl_\(id)" }
        var searchTable: String { "fts_\(id)" }

        /// The columns of `records` every insert writes, before the slot columns.
        static let recordColumns = [
            "zone", "name", "type", "tag", "parent", "created", "created_by", "created_device", "modified", "modified_by",
            "modified_device", "size", "payload",
        ]
        /// The columns every update writes, before the slot columns.
        static let updatedColumns = ["tag", "parent", "modified", "modified_by", "modified_device", "size", "payload"]
    }

    /// The database whose SQL a catalog's record types precompute: the statements every save
    /// runs are built once per schema version, in the text the store's database takes.
    enum Dialect: Hashable, Sendable {
        /// SQLite, one environment per file: tables unqualified, `?` parameters.
        case sqlite
        /// PostgreSQL, one environment per schema: tables qualified by `schema` (already
        /// quoted), `$n` parameters.
        case postgres(schema: String)
    }

    /// The schema version this catalog was loaded at.
    var version: Int64
    /// The domain schema.
    var schema: Schema
    /// Record types by name.
    var types: [String: RecordType]
    /// Record type names by id.
    var typeNames: [Int64: String]

    /// The record type called `name`.
    func recordType(_ name: String) throws -> RecordType {
        guard let type = types[name] else { throw CloudStoreError.badRequest("Did not find record type: \(name)") }
        return type
    }

    /// The name of the record type with `id`.
    func typeName(_ id: Int64) throws -> String {
        guard let name = typeNames[id] else {
            throw CloudStoreError.internalError("A stored record has an unknown record type id \(id)")
        }
        return name
    }
}

// MARK: - What storage can hold

extension SchemaCatalog {
    /// Refuses what storage cannot do: changing a field's type from `old`'s, or an index the type
    /// cannot carry. Both backends ask before they store a record type.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the field.
    static func validateStorable(_ definition: RecordTypeDefinition, replacing old: RecordType?) throws {
        for field in definition.fields {
            if let existing = old?.fields[field.name], existing.definition.type != field.type {
                throw CloudStoreError.badRequest(
                    "Cannot change the type of field '\(field.name)' of record type '\(definition.name)' from \(existing.definition.type) to \(field.type)")
            }
            if let system = SystemField(rawValue: field.name), system.type != field.type {
                throw CloudStoreError.badRequest("System field '\(field.name)' has type \(system.type), not \(field.type)")
            }
            for index in field.indexes.sorted() where !index.applies(to: field.type) {
                throw CloudStoreError.badRequest("Field '\(field.name)' of type \(field.type) cannot be \(index)")
            }
        }
    }
}

// MARK: - Loading

extension SchemaCatalog {
    /// A `record_types` row.
    typealias TypeRow = (id: Int64, name: String)
    /// A `grants` row.
    typealias GrantRow = (type: Int64, grant: Grant)
    /// A `fields` row.
    typealias FieldRow = (type: Int64, field: Field)

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
            (row.integer(1), try field(
                id: row.integer(0), name: row.text(2), storedType: row.text(3), encrypted: row.integer(4) != 0,
                numberPreference: row.optionalText(5), queryable: row.integer(6) != 0, sortable: row.integer(7) != 0,
                searchable: row.integer(8) != 0, slot: row.optionalInteger(9)))
        }
        return assemble(version: version, roles: roles, types: typeRows, grants: grantRows, fields: fieldRows, dialect: .sqlite)
    }

    /// A grant as `grants` stores it: a role and comma-separated permissions.
    static func grant(role: String, permissions: String) -> Grant {
        Grant(permissions.split(separator: ",").compactMap { Permission(rawValue: String($0)) }, to: role)
    }

    /// A field from the columns of its `fields` row.
    static func field(
        id: Int64, name: String, storedType: String, encrypted: Bool, numberPreference: String?, queryable: Bool, sortable: Bool,
        searchable: Bool, slot: Int64?
    ) throws -> Field {
        guard let type = FieldType(wireName: storedType) else {
            throw CloudStoreError.internalError("Field \(name) has an unknown stored type \(storedType)")
        }
        var indexes: Set<IndexKind> = []
        if queryable { indexes.insert(.queryable) }
        if sortable { indexes.insert(.sortable) }
        if searchable { indexes.insert(.searchable) }
        let definition = FieldDefinition(
            name: name, type: type, indexes: indexes, isEncrypted: encrypted,
            numberPreference: numberPreference.flatMap(NumberPreference.init(rawValue:)))
        return Field(id: id, definition: definition, slot: slot.map(Int.init))
    }

    /// The catalog the rows of `roles`, `record_types` (in position order), `grants` and
    /// `fields` (each in type and position order) describe, whichever database they came from.
    static func assemble(
        version: Int64, roles: [String], types typeRows: [TypeRow], grants grantRows: [GrantRow], fields fieldRows: [FieldRow],
        dialect: Dialect
    ) -> SchemaCatalog {
        let grantsByType = Dictionary(grouping: grantRows, by: \.type)
        let fieldsByType = Dictionary(grouping: fieldRows, by: \.type)
        var types: [String: RecordType] = [:]
        var typeNames: [Int64: String] = [:]
        var definitions: [RecordTypeDefinition] = []
        for row in typeRows {
            let fields = (fieldsByType[row.id] ?? []).map(\.field)
            let definition = RecordTypeDefinition(
                name: row.name, fields: fields.map(\.definition), grants: (grantsByType[row.id] ?? []).map(\.grant))
            definitions.append(definition)
            types[row.name] = RecordType(
                id: row.id, definition: definition,
                fields: Dictionary(uniqueKeysWithValues: fields.map { ($0.definition.name, $0) }), dialect: dialect)
            typeNames[row.id] = row.name
        }
        return SchemaCatalog(
            version: version, schema: Schema(roles: roles, recordTypes: definitions), types: types, typeNames: typeNames)
    }
}
