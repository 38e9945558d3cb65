/// The schema of an environment file together with storage's ids for its types and fields and
/// the state of their projections. Loaded once per schema version and shared between threads.
struct SchemaCatalog: Sendable {
    /// A field with its storage id.
    struct Field: Hashable, Sendable {
        var id: Int64
        var definition: FieldDefinition
        /// Whether `rt_N` has the field's column(s).
        var hasColumn: Bool
        /// Whether this is a system field; kept so hot paths need not look the name up.
        let isSystem: Bool

        init(id: Int64, definition: FieldDefinition, hasColumn: Bool) {
            self.id = id
            self.definition = definition
            self.hasColumn = hasColumn
            isSystem = definition.isSystem
        }

        /// Whether the field has a column in `rt_N` kept up to date: it is QUERYABLE or SORTABLE.
        var isProjected: Bool { !isSystem && (definition.indexes.contains(.queryable) || definition.indexes.contains(.sortable)) }
        /// Whether the field's elements are kept in `rl_N`.
        var isListProjected: Bool { isProjected && definition.type.isList }
        /// Whether the field is a column of `fts_N`.
        var isSearchable: Bool { !isSystem && definition.indexes.contains(.searchable) && definition.type.scalar == .string }
        /// The column name in `rt_N` (for a location, the latitude's; the longitude's is `longitudeColumn`).
        var column: String { definition.type == .location ? "f\(id)_lat" : "f\(id)" }
        /// The longitude column of a location field.
        var longitudeColumn: String { "f\(id)_lon" }
        /// The column name in `fts_N`.
        var searchColumn: String { "f\(id)" }
        /// The `rt_N` columns holding the field.
        var columns: [String] { definition.type == .location ? [column, longitudeColumn] : [column] }
    }

    /// A record type with its storage id and fields, and what writes to it need, worked out
    /// once per schema version rather than on every save.
    struct RecordType: Sendable {
        var id: Int64
        var definition: RecordTypeDefinition
        var fields: [String: Field] { didSet { derive() } }

        /// Fields in definition order.
        private(set) var orderedFields: [Field] = []
        /// Fields projected to columns, in definition order.
        private(set) var projectedFields: [Field] = []
        /// Projected list fields, in definition order.
        private(set) var listFields: [Field] = []
        /// Fields indexed for token search, in definition order.
        private(set) var searchableFields: [Field] = []
        /// `INSERT INTO rt_N(...)` with a parameter per system and projected column.
        private(set) var insertSQL = ""
        /// `UPDATE rt_N SET ... WHERE zone = ? AND rid = ?`.
        private(set) var updateSQL = ""
        /// `INSERT INTO fts_N(rowid, ...)`.
        private(set) var searchInsertSQL = ""

        init(id: Int64, definition: RecordTypeDefinition, fields: [String: Field]) {
            self.id = id
            self.definition = definition
            self.fields = fields
            derive()
        }

        var table: String { "rt_\(id)" }
        var listTable: String { "rl_\(id)" }
        var searchTable: String { "fts_\(id)" }

        private mutating func derive() {
            orderedFields = definition.fields.compactMap { fields[$0.name] }
            projectedFields = orderedFields.filter(\.isProjected)
            listFields = projectedFields.filter(\.isListProjected)
            searchableFields = orderedFields.filter(\.isSearchable)
            let projected = projectedFields.flatMap(\.columns)
            let insertColumns = ["zone", "rid", "name", "ctime", "mtime", "cby", "mby", "etag"] + projected
            insertSQL = "INSERT INTO \(table)(\(insertColumns.joined(separator: ", "))) VALUES (\(Self.placeholders(insertColumns.count)))"
            let assignments = (["mtime", "mby", "etag"] + projected).map { "\($0) = ?" }.joined(separator: ", ")
            updateSQL = "UPDATE \(table) SET \(assignments) WHERE zone = ? AND rid = ?"
            let searchColumns = ["rowid"] + searchableFields.map(\.searchColumn)
            searchInsertSQL = "INSERT INTO \(searchTable)(\(searchColumns.joined(separator: ", "))) VALUES (\(Self.placeholders(searchColumns.count)))"
        }

        private static func placeholders(_ count: Int) -> String { Array(repeating: "?", count: count).joined(separator: ", ") }
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

// MARK: - Loading

extension SchemaCatalog {
    /// Reads the whole schema from `connection`.
    static func load(from connection: SQLiteConnection, version: Int64) throws -> SchemaCatalog {
        let roles = try connection.statement("SELECT name FROM roles ORDER BY position").rows { $0.text(0) }
        let typeRows = try connection.statement("SELECT type, name FROM record_types ORDER BY position").rows {
            (id: $0.integer(0), name: $0.text(1))
        }
        let grantRows = try connection.statement("SELECT type, role, permissions FROM grants ORDER BY type, position").rows {
            row in
            (type: row.integer(0), grant: Grant(
                row.text(2).split(separator: ",").compactMap { Permission(rawValue: String($0)) }, to: row.text(1)))
        }
        let grantsByType = Dictionary(grouping: grantRows, by: \.type)
        let fieldRows = try connection.statement(
            """
            SELECT field, type, name, field_type, encrypted, number_preference, queryable, sortable, searchable, has_column
            FROM fields ORDER BY type, position
            """
        ).rows { row -> (type: Int64, field: Field) in
            guard let type = FieldType(wireName: row.text(3)) else {
                throw CloudStoreError.internalError("Field \(row.text(2)) has an unknown stored type \(row.text(3))")
            }
            var indexes: Set<IndexKind> = []
            if row.integer(6) != 0 { indexes.insert(.queryable) }
            if row.integer(7) != 0 { indexes.insert(.sortable) }
            if row.integer(8) != 0 { indexes.insert(.searchable) }
            let definition = FieldDefinition(
                name: row.text(2), type: type, indexes: indexes, isEncrypted: row.integer(4) != 0,
                numberPreference: row.optionalText(5).flatMap(NumberPreference.init(rawValue:)))
            return (row.integer(1), Field(id: row.integer(0), definition: definition, hasColumn: row.integer(9) != 0))
        }
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
                fields: Dictionary(uniqueKeysWithValues: fields.map { ($0.definition.name, $0) }))
            typeNames[row.id] = row.name
        }
        return SchemaCatalog(
            version: version, schema: Schema(roles: roles, recordTypes: definitions), types: types, typeNames: typeNames)
    }
}
