import CloudKitWire
import CloudStore

extension ManagementActions {
    /// An environment's schema: its roles and record types, each with every field (system
    /// fields included), type, indexes and grants.
    public func schema(of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws
        -> EnvironmentSchemaView
    {
        let schema = try store.schema(try existingContainer(container), environment)
        return EnvironmentSchemaView(schema, environment: environment)
    }

    /// The schema in CloudKit's schema language (`.ckdb`).
    public func schemaText(of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws -> String {
        try store.exportSchema(try existingContainer(container), environment)
    }

    /// Imports schema text into development; errors name their line and column.
    public func importSchema(
        _ text: String, into container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> EnvironmentSchemaView {
        try store.importSchema(text, into: try existingContainer(container), environment, by: actor)
        return try schema(of: container, environment: environment, as: actor)
    }

    /// What importing schema text into development would add, change and remove, changing
    /// nothing: the preview the page shows before importing, and the import's dry run.
    public func previewSchemaImport(
        _ text: String, into container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> SchemaImportPreviewView {
        SchemaImportPreviewView(try store.previewSchemaImport(text, into: try existingContainer(container), environment))
    }

    /// Checks schema text against development without changing anything.
    public func validateSchema(
        _ text: String, for container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> SchemaValidation {
        SchemaValidation(try store.validateSchema(text, for: try existingContainer(container), environment))
    }

    /// Creates an empty record type in development.
    public func createRecordType(
        _ name: String, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> RecordTypeView {
        let identifier = try existingContainer(container)
        try store.createRecordType(name, in: identifier, environment, by: actor)
        return try recordType(name, identifier, environment)
    }

    /// Adds a field to a record type in development.
    /// - Parameters:
    ///   - type: the field type as CloudKit names it: `STRING`, `INT64`, `REFERENCE_LIST`…
    ///   - indexes: `QUERYABLE`, `SORTABLE`, `SEARCHABLE`.
    public func addField(
        _ name: String, type: String, indexes: [String], to recordType: String, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> RecordTypeView {
        let identifier = try existingContainer(container)
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
        _ indexes: [String], of field: String, recordType: String, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> RecordTypeView {
        let identifier = try existingContainer(container)
        let kinds = try Self.indexes(indexes)
        try store.setIndexes(kinds, of: field, recordType: recordType, in: identifier, environment, by: actor)
        return try self.recordType(recordType, identifier, environment)
    }

    /// Sets the indexes of several fields of a record type in development, in one save:
    /// `[field: ["QUERYABLE", …]]`; fields left out keep theirs.
    public func setIndexes(
        _ indexes: [String: [String]], recordType: String, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> RecordTypeView {
        let identifier = try existingContainer(container)
        var kinds: [String: Set<IndexKind>] = [:]
        for (field, names) in indexes { kinds[field] = try Self.indexes(names) }
        try store.setIndexes(kinds, recordType: recordType, in: identifier, environment, by: actor)
        return try self.recordType(recordType, identifier, environment)
    }

    /// How many records of each type an environment holds, in every zone of every database.
    public func recordCounts(
        of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> [String: Int64] {
        try store.recordCounts(of: try existingContainer(container), environment)
    }

    /// What deleting a field of a record type (or, without a field, the type) would remove in
    /// development, or — with `confirmed` — deletes it and says what went.
    public func deleteFromSchema(
        field: String?, of recordType: String, confirmed: Bool, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> SchemaDeletionView {
        let identifier = try existingContainer(container)
        guard confirmed else {
            return SchemaDeletionView(
                try store.schemaDeletionImpact(field: field, of: recordType, in: identifier, environment), deleted: false)
        }
        let impact =
            try field.map { try store.deleteField($0, of: recordType, in: identifier, environment, by: actor) }
            ?? store.deleteRecordType(recordType, in: identifier, environment, by: actor)
        return SchemaDeletionView(impact, deleted: true)
    }

    private func recordType(_ name: String, _ container: ContainerIdentifier, _ environment: Environment) throws -> RecordTypeView {
        guard let definition = try store.schema(container, environment).recordType(name) else {
            throw CloudStoreError.notFound("Record type \(name) does not exist")
        }
        return RecordTypeView(definition)
    }

    private static func indexes(_ names: [String]) throws -> Set<IndexKind> {
        Set(
            try names.map { name in
                guard let kind = IndexKind(rawValue: name.uppercased()) else {
                    throw CloudStoreError.badRequest("Unknown index '\(name)': use QUERYABLE, SORTABLE or SEARCHABLE")
                }
                return kind
            })
    }

    /// Every field type a field can be given, as CloudKit names them.
    static let fieldTypeNames =
        "STRING, INT64, DOUBLE, TIMESTAMP, BYTES, REFERENCE, ASSET, LOCATION, and LIST<…> of each as e.g. STRING_LIST"

}
