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
        try resetDevelopment(container, restoring: nil, by: actor).deleted
    }

    /// Resets development as ``resetDevelopment(_:by:)`` does and, in the same transaction,
    /// writes `seed`'s records back (with the blobs of their assets, and their types where
    /// production's schema lacks them); `nil` leaves development empty.
    func resetDevelopment(_ container: ContainerIdentifier, restoring seed: SeedContent?, by actor: OperatorIdentity?) throws
        -> DevelopmentReset
    {
        let production = try schema(container, .production)
        let seedSchema = try seed.map { try SchemaLanguage.parse($0.schema) }
        let space = EnvironmentKey(container: container, environment: .development)
        // Staged outside the transaction, the slow part, as an upload stages its bytes.
        let staged = try (seed?.blobs ?? []).map { (row: $0.row, staged: try assetStore.stage($0.row.sha, $0.bytes, in: space)) }
        // Sessions live in the catalog, apart from the environment's file: they end first, so
        // that a failure between the two leaves users signed out of intact data rather than
        // signed in to a reset one.
        let now = now
        let committed: (DevelopmentReset, Set<String>)
        do {
            let sessions = try credentials.revokeSessionsForReset(of: container, .development)
            committed = try resetting(container, production, seedSchema, seed, staged, sessions: sessions, now: now, by: actor)
        } catch {
            // Nothing of the seed was kept: what staging left goes (a blob a row names stays).
            for blob in staged { assetStore.discard(blob.staged, blobIsHeld: true) }
            throw error
        }
        // A blob a row already named was not committed: what staging left of it goes.
        for blob in staged where !committed.1.contains(blob.row.sha) { assetStore.discard(blob.staged, blobIsHeld: true) }
        // No record holds an asset any more, but those of the seed: every other blob goes,
        // uploads not yet saved included.
        _ = try collectUnreferencedAssets(container, .development, createdBefore: .max)
        return committed.0
    }

    /// The transaction of a reset: erases development, sets its schema and writes the seed
    /// back, audited; answers what it did and the blobs it committed.
    private func resetting(
        _ container: ContainerIdentifier, _ production: Schema, _ seedSchema: Schema?, _ seed: SeedContent?,
        _ staged: [(row: AssetBlob, staged: StagedBlob)], sessions: Int, now: Int64, by actor: OperatorIdentity?
    ) throws -> (DevelopmentReset, Set<String>) {
        try movingAuditOutbox(of: container, .development) {
            try environment(container, .development).writeSchema { writer in
                let deleted = try Self.contents(of: writer, productionRecordTypes: production.recordTypes.count, sessions: sessions)
                try writer.eraseEverything()
                try writer.replaceSchema(seedSchema.map { Self.merging($0, into: production) } ?? production)
                var outcome = RestoreOutcome()
                var newBlobs: [(row: AssetBlob, staged: StagedBlob)] = []
                if let seed {
                    // Rows first, files once every record is written: as an upload commits a blob.
                    newBlobs = try staged.filter { try writer.insertAssetBlob($0.row) }
                    for (zoneName, records) in Dictionary(grouping: seed.records, by: \.zoneName).sorted(by: { $0.key < $1.key }) {
                        try Self.writeBack(
                            records.map { ($0.record.recordName, Optional($0.record)) }, zoneName: zoneName,
                            database: seed.summary.database, createZone: true, onlyMissing: false, writer: writer, now: now, notifier: nil,
                            outcome: &outcome)
                    }
                    for blob in newBlobs { try assetStore.commit(blob.staged) }
                }
                let restored = seed.map { "; seed \($0.summary.name): \(outcome.restored) records restored" } ?? ""
                try writer.record(
                    auditNote(
                        actor, "environment.reset", container, .development,
                        target: "\(deleted.records) records, \(deleted.zones) zones, \(deleted.sessions) sessions" + restored))
                return (DevelopmentReset(deleted: deleted, seed: seed?.summary, restored: outcome.restored), Set(newBlobs.map(\.row.sha)))
            }
        }
    }

    /// `base` with the record types of `added` it lacks, and the fields of `added`'s types its
    /// own types lack: production's schema with what a seed's records need.
    static func merging(_ added: Schema, into base: Schema) -> Schema {
        var merged = base
        for role in added.roles where !merged.roles.contains(role) { merged.roles.append(role) }
        for type in added.recordTypes {
            guard var existing = merged.recordType(type.name) else {
                merged.recordTypes.append(type)
                continue
            }
            for field in type.userFields where existing.field(field.name) == nil { existing.upsert(field) }
            merged.recordTypes = merged.recordTypes.map { $0.name == type.name ? existing : $0 }
        }
        return merged
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
