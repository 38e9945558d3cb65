extension CloudStore {
    /// The schema of a container's environment in CloudKit's schema language.
    public func exportSchema(_ container: ContainerIdentifier, _ environment: Environment) throws -> String {
        SchemaLanguage.export(try schema(container, environment))
    }

    /// Parses and checks schema text without applying it.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the line and column of the first error.
    public func validateSchema(_ text: String) throws -> Schema {
        do {
            return try SchemaLanguage.parse(text)
        } catch {
            throw CloudStoreError.badRequest("Schema validation failed: \(error)")
        }
    }

    /// Imports schema text into development: adds record types and fields, sets indexes, roles
    /// and grants as given. It never deletes data: types and fields the text leaves out stay,
    /// without indexes.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a bad schema, a changed field type, or
    ///   a production environment (production changes only by deploying).
    public func importSchema(
        _ text: String, into container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil
    )
        throws
    {
        guard environment == .development else {
            throw CloudStoreError.badRequest("Schema can be imported into development only; production changes by deploying")
        }
        let schema = try validateSchema(text)
        let note = auditNote(actor, "schema.import", container, environment, target: "\(text.utf8.count) bytes of .ckdb")
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).writeSchema { writer in
                try writer.replaceSchema(schema)
                try writer.record(note)
            }
        }
    }
}

extension CloudStore {
    /// Checks that schema text parses and could be imported into a container's environment,
    /// without changing anything: a dry run of ``importSchema(_:into:_:)``.
    /// - Returns: the parsed schema.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming what is wrong.
    @discardableResult
    public func validateSchema(_ text: String, for container: ContainerIdentifier, _ environment: Environment) throws -> Schema {
        guard environment == .development else {
            throw CloudStoreError.badRequest("Schema can be imported into development only; production changes by deploying")
        }
        let schema = try validateSchema(text)
        do {
            try self.environment(container, environment).writeSchema { writer -> Void in
                try writer.replaceSchema(schema)
                throw DryRun(preview: nil)
            }
        } catch is DryRun {}
        return schema
    }

    /// What importing `text` into development would add, change and remove, found by importing
    /// it in a transaction that is then rolled back: nothing changes.
    /// - Throws: what ``importSchema(_:into:_:by:)`` would throw: ``CloudStoreError/badRequest(_:)``
    ///   for a bad schema, a changed field type, or production.
    public func previewSchemaImport(_ text: String, into container: ContainerIdentifier, _ environment: Environment) throws
        -> SchemaImportPreview
    {
        guard environment == .development else {
            throw CloudStoreError.badRequest("Schema can be imported into development only; production changes by deploying")
        }
        let schema = try validateSchema(text)
        do {
            try self.environment(container, environment).writeSchema { writer -> Void in
                let current = try writer.schema()
                try writer.replaceSchema(schema)
                throw DryRun(preview: SchemaImportPreview(current: current, imported: try writer.schema()))
            }
        } catch let dryRun as DryRun {
            if let preview = dryRun.preview { return preview }
        }
        throw CloudStoreError.internalError("The schema import's dry run ended without its preview")
    }

    /// Unwinds a dry run's transaction, carrying what it found.
    private struct DryRun: Error {
        var preview: SchemaImportPreview?
    }
}
