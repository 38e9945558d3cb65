import Foundation

extension CloudStore {
    // MARK: - Deploying the schema

    /// What deploying development's schema to production would change, with the production
    /// records each change touches, and what it would refuse.
    /// - Parameter gaps: when given, the difference of a deployment of only what fills them
    ///   (``deploySchema(_:filling:deployedBy:by:)``).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a gap development's schema does not fill.
    public func schemaDifference(_ container: ContainerIdentifier, filling gaps: [SchemaGap]? = nil) throws -> SchemaDifference {
        let production = try environment(container, .production)
        let (schema, records) = try production.read { reader in (try reader.schema(), try reader.recordCounts(in: nil)) }
        let development = try self.schema(container, .development)
        let target = try gaps.map { try Self.schema(schema, filling: $0, from: development) } ?? development
        return SchemaDifference(production: schema, development: target, productionRecords: records)
    }

    /// `production` with each of `gaps` filled from `development`.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a gap development does not fill.
    static func schema(_ production: Schema, filling gaps: [SchemaGap], from development: Schema) throws -> Schema {
        try gaps.reduce(production) { target, gap in
            guard let filled = gap.filling(target, from: development) else {
                throw CloudStoreError.badRequest("Development's schema does not have the \(gap) to deploy")
            }
            return filled
        }
    }

    /// Deploys development's schema to production in one transaction: record types, fields,
    /// indexes, roles and grants. Records are never copied. The deployment joins production's
    /// history.
    /// - Parameter deployedBy: who deploys, for the history.
    /// - Returns: the deployment made.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when development would remove or change
    ///   something production has (with every reason), or when there is nothing to deploy.
    /// - Parameter gaps: when given, only what fills these gaps of production's schema (see
    ///   ``SchemaGap/filling(_:from:)``) rather than all of development's.
    @discardableResult
    public func deploySchema(
        _ container: ContainerIdentifier, filling gaps: [SchemaGap]? = nil, deployedBy: String, by actor: OperatorIdentity? = nil
    ) throws -> SchemaDeployment {
        let development = try schema(container, .development)
        let production = try environment(container, .production)
        // The difference is worked out again inside the transaction, so what is applied is
        // exactly what was checked, whatever changed in between.
        let difference = try production.writeSchema { writer -> SchemaDifference in
            let deployed = try writer.schema()
            let target = try gaps.map { try Self.schema(deployed, filling: $0, from: development) } ?? development
            let difference = SchemaDifference(
                production: deployed, development: target, productionRecords: try writer.recordCounts(in: nil))
            guard difference.refusals.isEmpty else {
                throw CloudStoreError.badRequest(
                    "The schema cannot be deployed: " + difference.refusals.map(\.reason).joined(separator: "; "))
            }
            guard !difference.changes.isEmpty else {
                throw CloudStoreError.badRequest("Production's schema is already development's: there is nothing to deploy")
            }
            try writer.replaceSchema(target)
            let count = difference.changes.count
            try writer.record(auditNote(actor, "schema.deploy", container, .production, target: "\(count) change\(count == 1 ? "" : "s")"))
            return difference
        }
        if actor != nil { moveAuditOutbox(of: production) }
        let deployment = SchemaDeployment(
            container: container, deployed: now, deployedBy: deployedBy, changes: difference.changes.map(\.description),
            schema: try exportSchema(container, .production))
        try lifecycleStorage.insertDeployment(deployment)
        return deployment
    }

    /// Production's deployments, the latest first.
    public func schemaDeployments(_ container: ContainerIdentifier, limit: Int = 100) throws -> [SchemaDeployment] {
        try lifecycleStorage.deployments(in: container, limit: limit)
    }

    // MARK: - Resetting development

    /// What resetting development would delete.
    public func developmentContents(_ container: ContainerIdentifier) throws -> DevelopmentContents {
        let productionTypes = try schema(container, .production).recordTypes.count
        let sessions = try credentials.openSessionCount(in: container, .development, now: now)
        return try environment(container, .development).read {
            try Self.contents(of: $0, productionRecordTypes: productionTypes, sessions: sessions)
        }
    }

    private static func contents(of reader: any EnvironmentReader, productionRecordTypes: Int, sessions: Int) throws -> DevelopmentContents
    {
        DevelopmentContents(
            records: try reader.zoneStats().reduce(0) { $0 + $1.records }, zones: try reader.createdZoneCount(),
            recordTypes: try reader.schema().recordTypes.count, productionRecordTypes: productionRecordTypes, sessions: sessions)
    }

    /// Resets a container's development environment as CloudKit does: every record, zone and
    /// change log, subscription, queued notification and asset deleted, custom roles taken from users, and the schema returned to
    /// production's (empty if nothing was deployed), in one transaction. Production is not
    /// touched. The environment gets a new incarnation, so change tokens and continuation
    /// markers from before are recognised as stale rather than read as a gap; and its users'
    /// sessions end, each refused afterwards with an error naming the reset.
    /// - Returns: what was deleted.
    @discardableResult
    public func resetDevelopment(_ container: ContainerIdentifier, by actor: OperatorIdentity? = nil) throws -> DevelopmentContents {
        let production = try schema(container, .production)
        // Sessions live in the catalog, apart from the environment's file: they end first, so
        // that a failure between the two leaves users signed out of intact data rather than
        // signed in to a reset one.
        let sessions = try credentials.revokeSessionsForReset(of: container, .development)
        let deleted = try movingAuditOutbox(of: container, .development) {
            try environment(container, .development).writeSchema { writer in
                let deleted = try Self.contents(of: writer, productionRecordTypes: production.recordTypes.count, sessions: sessions)
                try writer.eraseEverything()
                try writer.replaceSchema(production)
                try writer.record(
                    auditNote(
                        actor, "environment.reset", container, .development,
                        target: "\(deleted.records) records, \(deleted.zones) zones, \(deleted.sessions) sessions"))
                return deleted
            }
        }
        // No record holds an asset any more: every blob goes, uploads not yet saved included.
        _ = try collectUnreferencedAssets(container, .development, createdBefore: .max)
        return deleted
    }
}

extension CloudStore {
    // MARK: - The audit trail

    /// Adds an operator action to the audit trail, stamped now; entries older than
    /// ``CloudStoreConfiguration/auditRetention`` are forgotten.
    public func recordAudit(
        actor: String, operatorName: String, container: String?, environment: String?, action: String, target: String
    ) throws {
        let time = now
        try lifecycleStorage.insertAuditEntry(
            AuditEntry(
                time: time, actor: actor, operatorName: operatorName, container: container, environment: environment,
                action: action, target: target),
            forgetBefore: time - configuration.auditRetention)
    }

    /// The audit entries `filter` selects, newest first.
    public func auditEntries(_ filter: AuditFilter) throws -> [AuditEntry] {
        moveAuditOutboxes()
        return try lifecycleStorage.auditEntries(filter)
    }
}
