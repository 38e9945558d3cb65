/// The schema of an environment file together with storage's ids for its types and fields and
/// the state of their projections. Loaded once per schema version and shared between threads.
struct SchemaCatalog: Sendable {
    /// A field with its storage id.
    struct Field: Hashable, Sendable {
        var id: Int64
        var definition: FieldDefinition
        /// Whether `rt_N` has the field's column(s).
        var hasColumn: Bool

        /// Whether the field has a column in `rt_N` kept up to date: it is QUERYABLE or SORTABLE.
        var isProjected: Bool { !definition.isSystem && (definition.has(.queryable) || definition.has(.sortable)) }
        /// Whether the field's elements are kept in `rl_N`.
        var isListProjected: Bool { isProjected && definition.type.isList }
        /// Whether the field is a column of `fts_N`.
        var isSearchable: Bool { !definition.isSystem && definition.has(.searchable) && definition.type.scalar == .string }
        /// The column name in `rt_N` (for a location, the latitude's; the longitude's is `column + "_lon"`).
        var column: String { definition.type.scalar == .location && !definition.type.isList ? "f\(id)_lat" : "f\(id)" }
        /// The longitude column of a location field.
        var longitudeColumn: String { "f\(id)_lon" }
        /// The column name in `fts_N`.
        var searchColumn: String { "f\(id)" }
    }

    /// A record type with its storage id and fields.
    struct RecordType: Sendable {
        var id: Int64
        var definition: RecordTypeDefinition
        var fields: [String: Field]

        /// Fields in definition order.
        var orderedFields: [Field] { definition.fields.compactMap { fields[$0.name] } }
        /// Fields projected to columns, in definition order.
        var projectedFields: [Field] { orderedFields.filter(\.isProjected) }
        /// Fields indexed for token search, in definition order.
        var searchableFields: [Field] { orderedFields.filter(\.isSearchable) }

        var table: String { "rt_\(id)" }
        var listTable: String { "rl_\(id)" }
        var searchTable: String { "fts_\(id)" }
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
