import Foundation

extension CloudStore {
    // MARK: - Seeds

    /// Saves records of development as the seed `name` (replacing a seed of that name): every
    /// record of the selection's types, or those its query matches, in every zone of its
    /// database, with the blobs of their assets and the definitions of their types, kept in the
    /// catalog so that a reset of development, which empties the environment, can restore them.
    /// Audited.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a bad name, an empty selection, or a
    ///   query the schema's indexes cannot run; ``CloudStoreError/notFound(_:)`` for a type
    ///   development lacks; ``CloudStoreError/accessDenied(_:)`` for an operator who may not
    ///   change development's data.
    @discardableResult
    public func saveSeed(
        named name: String, _ container: ContainerIdentifier, _ selection: SeedSelection, by actor: OperatorIdentity? = nil
    )
        throws -> SeedSummary
    {
        try authorize(
            actor, .changes(.data, environment: .development),
            on: OperatorTarget(container: container, environment: .development, database: selection.database.scope))
        let name = try Self.seedName(name)
        let storage = try environment(container, .development)
        let (schema, records, rows) = try storage.read { reader in
            let schema = try reader.schema()
            let records = try Self.selectedRecords(selection, schema: schema, reader: reader)
            let hashes = Set(records.flatMap { $0.record.fields.values.flatMap(\.assets).compactMap(\.contentHash) })
            return (schema, records, try hashes.sorted().compactMap { try reader.assetBlob($0) })
        }
        let space = EnvironmentKey(container: container, environment: .development)
        let blobs = try rows.map { SeedBlob(row: $0, bytes: try assetStore.read($0.sha, in: space)) }
        let types = selection.selectedTypes
        let summary = SeedSummary(
            container: container, name: name, created: now, createdBy: (actor ?? .local).description, database: selection.database,
            selection: selection.description, recordTypes: types, records: records.count, blobs: blobs.count,
            blobBytes: blobs.reduce(0) { $0 + Int64($1.bytes.count) })
        let kept = Schema(roles: schema.roles, recordTypes: types.compactMap(schema.recordType))
        try auditedCatalogChange(
            actor, "seed.save", container: container.rawValue, environment: Environment.development.rawValue,
            target: "\(name): \(selection.database) \(selection.description), \(records.count) records"
        ) {
            try seedStorage.insertSeed(
                SeedContent(summary: summary, schema: SchemaLanguage.export(kept), records: records, blobs: blobs))
        }
        return summary
    }

    /// A container's seeds, by name.
    public func seeds(_ container: ContainerIdentifier) throws -> [SeedSummary] {
        try seedStorage.seeds(in: container)
    }

    /// Deletes the seed `name`. Audited.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is none.
    public func deleteSeed(named name: String, _ container: ContainerIdentifier, by actor: OperatorIdentity? = nil) throws {
        try authorize(
            actor, .changes(.data, environment: .development), on: OperatorTarget(container: container, environment: .development))
        guard
            try auditedCatalogChange(
                actor, "seed.delete", container: container.rawValue, environment: Environment.development.rawValue, target: name,
                { try seedStorage.deleteSeed(named: name, in: container) })
        else { throw CloudStoreError.notFound("There is no seed named '\(name)' in \(container)") }
    }

    /// Resets development as ``resetDevelopment(_:by:)`` does and restores the seed `name` in
    /// the same transaction: its records written back in their zones (new change tokens, as
    /// after any reset), their blobs with them, and their types added to production's schema
    /// where it lacks them. Without a name, development is left empty. Audited.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such seed.
    @discardableResult
    public func resetDevelopment(_ container: ContainerIdentifier, toSeed name: String?, by actor: OperatorIdentity? = nil) throws
        -> DevelopmentReset
    {
        try authorize(
            actor, .changes(.data, environment: .development), on: OperatorTarget(container: container, environment: .development))
        let seed = try name.map { name in
            guard let seed = try seedStorage.seed(named: name, in: container) else {
                throw CloudStoreError.notFound("There is no seed named '\(name)' in \(container)")
            }
            return seed
        }
        return try resetDevelopment(container, restoring: seed, by: actor)
    }

    // MARK: - Choosing records

    /// The records `selection` takes from the environment `reader` reads, zone by zone in name
    /// order, each zone's by record name.
    static func selectedRecords(_ selection: SeedSelection, schema: Schema, reader: any EnvironmentReader) throws -> [SeedRecord] {
        let types = selection.selectedTypes
        guard !types.isEmpty else { throw CloudStoreError.badRequest("Choose at least one record type, or a query") }
        for type in types where schema.recordType(type) == nil {
            throw CloudStoreError.notFound("The schema has no record type '\(type)'")
        }
        var records: [SeedRecord] = []
        for zone in try reader.zones(in: selection.database).sorted(by: { $0.zoneID.zoneName < $1.zoneID.zoneName }) {
            // Planned once per zone, so that a query the indexes cannot run fails at once, naming the index.
            var plan = try selection.query.map { try QueryPlanner(schema: schema).plan($0, zones: [zone], limit: 1) }
            for type in types {
                try eachRecord(in: zone, ofType: type, reader: reader) { stored in
                    if plan != nil {
                        plan?.onlyKey = stored.key
                        guard let plan, try !reader.query(plan).isEmpty else { return }
                    }
                    records.append(SeedRecord(zoneName: zone.zoneID.zoneName, record: stored.record))
                }
            }
        }
        return records
    }

    /// A seed's name, checked: letters, digits, `.`, `-` and `_`, up to 64.
    static func seedName(_ name: String) throws -> String {
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 64,
            trimmed.unicodeScalars.allSatisfy({
                $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "._-".unicodeScalars.contains($0))
            })
        else {
            throw CloudStoreError.badRequest("A seed's name is 1 to 64 letters, digits, '.', '-' or '_'")
        }
        return trimmed
    }
}
