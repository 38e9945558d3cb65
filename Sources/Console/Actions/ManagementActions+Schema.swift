import CloudKitWire
import CloudStore

extension ManagementActions {
    /// An environment's schema: its roles and record types, each with every field (system
    /// fields included), type, indexes and grants.
    public func schema(of container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let environment = try Self.environment(environment)
        let schema = try store.schema(try existingContainer(container), environment)
        return [
            "environment": .string(environment.rawValue), "editable": .bool(environment == .development),
            "roles": .array(schema.roles.map(JSONValue.string)),
            "recordTypes": .array(schema.recordTypes.map(Self.recordTypeJSON)),
        ]
    }

    /// The schema in CloudKit's schema language (`.ckdb`).
    public func schemaText(of container: String, environment: String, as actor: OperatorIdentity) throws -> String {
        try store.exportSchema(try existingContainer(container), try Self.environment(environment))
    }

    /// Imports schema text into development; errors name their line and column.
    public func importSchema(_ text: String, into container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        try store.importSchema(text, into: try existingContainer(container), try Self.environment(environment), by: actor)
        return try schema(of: container, environment: environment, as: actor)
    }

    /// Checks schema text against development without changing anything.
    public func validateSchema(_ text: String, for container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let schema = try store.validateSchema(text, for: try existingContainer(container), try Self.environment(environment))
        return ["valid": true, "recordTypes": .integer(Int64(schema.recordTypes.count)), "roles": .integer(Int64(schema.roles.count))]
    }

    /// Creates an empty record type in development.
    public func createRecordType(_ name: String, in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let environment = try Self.environment(environment)
        try store.createRecordType(name, in: identifier, environment, by: actor)
        return try recordType(name, identifier, environment)
    }

    /// Adds a field to a record type in development.
    /// - Parameters:
    ///   - type: the field type as CloudKit names it: `STRING`, `INT64`, `REFERENCE_LIST`…
    ///   - indexes: `QUERYABLE`, `SORTABLE`, `SEARCHABLE`.
    public func addField(
        _ name: String, type: String, indexes: [String], to recordType: String, in container: String, environment: String,
        as actor: OperatorIdentity
    ) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let environment = try Self.environment(environment)
        guard let fieldType = FieldType(wireName: type.uppercased()) else {
            throw CloudStoreError.badRequest("Unknown field type '\(type)': use one of \(Self.fieldTypeNames)")
        }
        try store.addField(
            FieldDefinition(name: name, type: fieldType, indexes: try Self.indexes(indexes)), to: recordType, in: identifier, environment,
            by: actor)
        return try self.recordType(recordType, identifier, environment)
    }

    /// Sets the indexes of a field in development.
    public func setIndexes(
        _ indexes: [String], of field: String, recordType: String, in container: String, environment: String, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let environment = try Self.environment(environment)
        let kinds = try Self.indexes(indexes)
        try store.setIndexes(kinds, of: field, recordType: recordType, in: identifier, environment, by: actor)
        return try self.recordType(recordType, identifier, environment)
    }

    private func recordType(_ name: String, _ container: ContainerIdentifier, _ environment: Environment) throws -> JSONValue {
        guard let definition = try store.schema(container, environment).recordType(name) else {
            throw CloudStoreError.notFound("Record type \(name) does not exist")
        }
        return Self.recordTypeJSON(definition)
    }

    private static func indexes(_ names: [String]) throws -> Set<IndexKind> {
        Set(try names.map { name in
            guard let kind = IndexKind(rawValue: name.uppercased()) else {
                throw CloudStoreError.badRequest("Unknown index '\(name)': use QUERYABLE, SORTABLE or SEARCHABLE")
            }
            return kind
        })
    }

    /// Every field type a field can be given, as CloudKit names them.
    static let fieldTypeNames = "STRING, INT64, DOUBLE, TIMESTAMP, BYTES, REFERENCE, ASSET, LOCATION, and LIST<…> of each as e.g. STRING_LIST"

    private static func recordTypeJSON(_ definition: RecordTypeDefinition) -> JSONValue {
        let system = SystemField.allCases.map { definition.field($0) }
        let fields = (system + definition.userFields).map { field -> JSONValue in
            [
                "name": .string(field.name), "type": .string(field.type.wireName), "system": .bool(field.isSystem),
                "indexes": .array(field.indexes.sorted().map { .string($0.rawValue) }),
            ]
        }
        let grants = definition.grants.map { grant -> JSONValue in
            ["role": .string(grant.role), "permissions": .array(grant.permissions.map { .string($0.rawValue) })]
        }
        return ["name": .string(definition.name), "fields": .array(fields), "grants": .array(grants)]
    }
}
