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

            let dialect: any RecordTypeDialect

            init(id: Int64, definition: RecordTypeDefinition, fields: [String: Field], dialect: any RecordTypeDialect) {
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
                let statements = dialect.statements(
                    typeID: id, insertColumns: insertColumns, updatedColumns: RecordType.updatedColumns + slots,
                    searchColumns: searchableFields.map(\.searchColumn))
                insertSQL = statements.insert
                updateSQL = statements.update
                searchInsertSQL = statements.searchInsert
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
        var dialect: any RecordTypeDialect { storage.dialect }

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

        init(id: Int64, definition: RecordTypeDefinition, fields: [String: Field], dialect: any RecordTypeDialect) {
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
                    "Cannot change the type of field '\(field.name)' of record type '\(definition.name)' from \(existing.definition.type) to \(field.type)"
                )
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
        dialect: any RecordTypeDialect
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
