extension CloudStore {
    // MARK: - Copying production to development, masked

    /// Copies records from production to development: every record of the selection's types,
    /// or those its query matches, in every zone of its database, written into development's
    /// zone of the same name under the same record names (so that references and parents still
    /// point where they did), with the value of every field marked personal replaced by its
    /// fake (``ValueMasker``, under the container's key: the same value always gives the same
    /// fake, so what joined on it still joins). Never a personal value of production: a field
    /// with no fake is left out. The blobs of their assets come along. One transaction of
    /// development, each record a new change as a save is; audited.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` unless the operator may read production's
    ///   data and change development's; ``CloudStoreError/badRequest(_:)`` when development's
    ///   schema lacks a selected type.
    public func copyToDevelopment(_ container: ContainerIdentifier, _ selection: SeedSelection, by actor: OperatorIdentity? = nil) throws
        -> MaskedCopyOutcome
    {
        try authorize(
            actor, .reads(.data, environment: .production),
            on: OperatorTarget(container: container, environment: .production, database: selection.database.scope))
        try authorize(
            actor, .changes(.data, environment: .development),
            on: OperatorTarget(container: container, environment: .development, database: selection.database.scope))
        let personal = try personalFields(container)
        let masker = ValueMasker(key: try maskingKey(of: container))
        var outcome = MaskedCopyOutcome()
        let read = try environment(container, .production).read { reader in
            try Self.selectedRecords(selection, schema: try reader.schema(), reader: reader)
        }
        var masked = Set<String>()
        let records = read.map { seedRecord -> SeedRecord in
            var copy = seedRecord
            for field in personal.fields(of: seedRecord.record.recordType) {
                guard let value = copy.record.fields[field] else { continue }
                copy.record.fields[field] = masker.mask(value, fieldName: field)
                outcome.maskedValues += value.type.isList ? value.elements.count : 1
                masked.insert("\(seedRecord.record.recordType).\(field)")
            }
            return copy
        }
        outcome.maskedFields = masked.sorted()
        let developmentSchema = try schema(container, .development)
        for type in selection.selectedTypes where developmentSchema.recordType(type) == nil {
            throw CloudStoreError.badRequest("Development has no record type '\(type)': reset development first, or create it")
        }
        let blobs = try stageBlobs(of: records, from: container)
        let now = now
        var blobCount = 0
        let written = try writingHistory(
            container, .development, "data.copy-to-development",
            target: "\(selection.database) \(selection.description): \(records.count) records, \(outcome.maskedValues) values masked",
            by: actor ?? .local
        ) { writer, notifiers in
            var written = RestoreOutcome()
            let newBlobs = try blobs.filter { try writer.insertAssetBlob($0.row) }
            for (zoneName, zoneRecords) in Dictionary(grouping: records, by: \.zoneName).sorted(by: { $0.key < $1.key }) {
                try Self.writeBack(
                    zoneRecords.map { ($0.record.recordName, Optional($0.record)) }, zoneName: zoneName, database: selection.database,
                    createZone: true, onlyMissing: false, writer: writer, now: now, notifier: notifiers(selection.database),
                    outcome: &written)
            }
            for blob in newBlobs { try self.assetStore.commit(blob.staged) }
            blobCount = newBlobs.count
            return written
        }
        outcome.copied = written.restored + written.reverted
        outcome.unchanged = records.count - outcome.copied
        outcome.zonesCreated = written.zonesRestored
        outcome.blobs = blobCount
        return outcome
    }

    /// The blobs `records` hold that development lacks, staged into development from production.
    private func stageBlobs(of records: [SeedRecord], from container: ContainerIdentifier) throws -> [(row: AssetBlob, staged: StagedBlob)]
    {
        let hashes = Set(records.flatMap { $0.record.fields.values.flatMap(\.assets).compactMap(\.contentHash) })
        guard !hashes.isEmpty else { return [] }
        let missing = try environment(container, .development).read { reader in try hashes.filter { try reader.assetBlob($0) == nil } }
        let rows = try environment(container, .production).read { reader in try missing.sorted().compactMap { try reader.assetBlob($0) } }
        let production = EnvironmentKey(container: container, environment: .production)
        let development = EnvironmentKey(container: container, environment: .development)
        return try rows.map { row in (row, try assetStore.stage(row.sha, try assetStore.read(row.sha, in: production), in: development)) }
    }
}
