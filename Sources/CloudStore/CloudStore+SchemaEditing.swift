extension CloudStore {
    /// Creates an empty record type in development, with CloudKit's default grants (as a type
    /// made just in time gets them) and its system fields.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a bad name or a production environment,
    ///   ``CloudStoreError/exists(_:)`` when the type exists.
    public func createRecordType(
        _ name: String, in container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil
    )
        throws
    {
        try requireDevelopment(environment)
        guard SchemaEvolution.isValidName(name) else {
            throw CloudStoreError.badRequest(
                "Invalid record type name '\(name)': use a letter followed by letters, digits or '_' (at most 255 bytes)")
        }
        try requireContainer(container)
        let note = auditNote(actor, "schema.record-type.create", container, environment, target: name)
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).writeSchema { writer in
                guard try writer.schema().recordType(name) == nil else {
                    throw CloudStoreError.exists("Record type \(name) already exists")
                }
                try writer.saveRecordType(RecordTypeDefinition(name: name, grants: Grant.defaults))
                try writer.record(note)
            }
        }
    }

    /// Adds a field to a record type in development.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a bad name, an index the type cannot carry
    ///   or a production environment; ``CloudStoreError/notFound(_:)`` for an unknown record type;
    ///   ``CloudStoreError/exists(_:)`` when the field exists.
    public func addField(
        _ field: FieldDefinition, to recordType: String, in container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws {
        try requireDevelopment(environment)
        guard SchemaEvolution.isValidName(field.name), !field.name.hasPrefix("___") else {
            throw CloudStoreError.badRequest(
                "Invalid field name '\(field.name)': use a letter followed by letters, digits or '_' (at most 255 bytes)")
        }
        let note = auditNote(actor, "schema.field.add", container, environment, target: "\(recordType).\(field.name) \(field.type)")
        try editRecordType(recordType, in: container, environment, audit: note) { definition in
            guard definition.field(field.name) == nil else {
                throw CloudStoreError.exists("Record type \(recordType) already has a field \(field.name)")
            }
            definition.upsert(field)
        }
    }

    /// Sets the indexes of one field, system fields included, in development; building an index
    /// over existing records happens here, before this returns.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for an index the field's type cannot carry or a
    ///   production environment; ``CloudStoreError/notFound(_:)`` for an unknown type or field.
    public func setIndexes(
        _ indexes: Set<IndexKind>, of field: String, recordType: String, in container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws {
        try requireDevelopment(environment)
        let named = indexes.isEmpty ? "none" : indexes.sorted().map(\.rawValue).joined(separator: ", ")
        let note = auditNote(actor, "schema.indexes.set", container, environment, target: "\(recordType).\(field): " + named)
        try editRecordType(recordType, in: container, environment, audit: note) { definition in
            guard var existing = definition.field(field) ?? SystemField(rawValue: field).map({ definition.field($0) }) else {
                throw CloudStoreError.notFound("Record type \(recordType) has no field \(field)")
            }
            existing.indexes = indexes
            definition.upsert(existing)
        }
    }

    /// Sets the indexes of several fields of one record type at once, in development: one save
    /// for a whole type's form. Fields left out keep theirs.
    /// - Throws: as ``setIndexes(_:of:recordType:in:_:by:)``, before anything changes.
    public func setIndexes(
        _ indexes: [String: Set<IndexKind>], recordType: String, in container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws {
        try requireDevelopment(environment)
        let named = indexes.sorted { $0.key < $1.key }.map { field, kinds in
            "\(field): " + (kinds.isEmpty ? "none" : kinds.sorted().map(\.rawValue).joined(separator: ", "))
        }
        let note = auditNote(actor, "schema.indexes.set", container, environment, target: "\(recordType) " + named.joined(separator: "; "))
        try editRecordType(recordType, in: container, environment, audit: note) { definition in
            for (field, kinds) in indexes {
                guard var existing = definition.field(field) ?? SystemField(rawValue: field).map({ definition.field($0) }) else {
                    throw CloudStoreError.notFound("Record type \(recordType) has no field \(field)")
                }
                existing.indexes = kinds
                definition.upsert(existing)
            }
        }
    }

    func editRecordType(
        _ name: String, in container: ContainerIdentifier, _ environment: Environment, audit note: AuditNote?,
        _ change: @Sendable (inout RecordTypeDefinition) throws -> Void
    ) throws {
        try requireContainer(container)
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).writeSchema { writer in
                guard var definition = try writer.schema().recordType(name) else {
                    throw CloudStoreError.notFound("Record type \(name) does not exist")
                }
                try change(&definition)
                try writer.saveRecordType(definition)
                try writer.record(note)
            }
        }
    }

    func requireDevelopment(_ environment: Environment) throws {
        guard environment == .development else {
            throw CloudStoreError.badRequest("The production schema is read-only; it changes only by deploying from development")
        }
    }
}
