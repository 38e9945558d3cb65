import Foundation

extension CloudStore {
    // MARK: - Restoring a zone or a type from a backup

    /// Brings a zone, or the records of a type (in one zone, or in every zone of the database),
    /// back to what the server's backup `name` holds of them, while the server runs: records the
    /// backup holds are written back where they differ or are missing (their zone created again
    /// when it was deleted), records it does not hold are deleted; everything else in the
    /// environment is untouched. Each is a new change in the change log, notified like a save,
    /// so clients holding older tokens receive it; what it replaces goes to the history and the
    /// trash. With `dryRun`, only counts what it would do, with a sample. One transaction,
    /// audited (not a dry run).
    ///
    /// Asset fields come back as the backup holds them. A blob the environment lost since (once
    /// no record or kept version held it) comes back from the backup where the backup holds
    /// blobs (a data directory's); a PostgreSQL backup leaves them where they are kept.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` without a database, without a zone or a type,
    ///   or when the file is not a backup of this backend; ``CloudStoreError/notFound(_:)`` when
    ///   there is no such backup, or it holds no such environment or zone.
    public func restoreFromBackup(
        named name: String, _ container: ContainerIdentifier, _ environment: Environment, in scope: HistoryScope, dryRun: Bool,
        by actor: OperatorIdentity
    ) throws -> RestoreOutcome {
        let database = try scope.restoredDatabase("A restore from a backup")
        let workDirectory = try Self.privateDirectory(in: FileManager.default.temporaryDirectory.path, "backup-read")
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        let file = try backupFile(named: name, into: workDirectory)
        guard let backup = try backend.openEnvironment(container, environment, inBackup: file, workDirectory: workDirectory) else {
            throw CloudStoreError.notFound("The backup \(name) holds no \(environment.rawValue) environment of \(container)")
        }
        defer { backup.close() }
        let held = try Self.recordsHeld(in: backup, named: name, database: database, scope: scope)
        let blobs = dryRun ? [] : try stageBlobsMissing(from: held, in: backup, container, environment)
        let now = now
        let plan: (any EnvironmentWriter, (DatabaseID) -> NotificationGenerator?) throws -> RestoreOutcome = { writer, notifiers in
            var outcome = RestoreOutcome()
            outcome.dryRun = dryRun
            // Rows first, files once every record is written: as an upload commits a blob.
            let newBlobs = try blobs.filter { try writer.insertAssetBlob($0.row) }
            var zoneNames = Set(held.keys)
            if scope.zoneName == nil { zoneNames.formUnion(try writer.zones(in: database).map(\.zoneID.zoneName)) }
            for zoneName in zoneNames.sorted() {
                let records = held[zoneName] ?? []
                var targets = records.map { (name: $0.recordName, record: Optional($0)) }
                if let zone = try writer.zone(named: zoneName, in: database) {
                    let names = Set(records.map(\.recordName))
                    try Self.eachRecord(in: zone, ofType: scope.recordType, reader: writer) { stored in
                        if !names.contains(stored.record.recordName) { targets.append((stored.record.recordName, nil)) }
                    }
                }
                // A zone named is made again even when empty; a type's records make only theirs.
                let createZone = scope.zoneName != nil || !records.isEmpty
                if targets.isEmpty && !createZone { continue }
                try Self.writeBack(
                    targets, zoneName: zoneName, database: database, createZone: createZone, onlyMissing: false,
                    writer: writer, now: now, notifier: dryRun ? nil : notifiers(database), outcome: &outcome, dryRun: dryRun)
            }
            for blob in newBlobs { try self.assetStore.commit(blob.staged) }
            return outcome
        }
        do {
            return try restoring(
                container, environment, dryRun: dryRun, "history.restore-from-backup",
                target: "\(Self.describe(scope, names: nil, since: nil)) from \(name)", by: actor, plan)
        } catch {
            try? self.environment(container, environment).write { writer in
                for blob in blobs { assetStore.discard(blob.staged, blobIsHeld: try writer.assetBlob(blob.row.sha) != nil) }
            }
            throw error
        }
    }

    /// The blobs the records held hold that the environment lacks (collected since the backup),
    /// staged from the backup with their rows; none where the backup holds no blobs.
    private func stageBlobsMissing(
        from held: [String: [Record]], in backup: BackupEnvironment, _ container: ContainerIdentifier, _ environment: Environment
    ) throws -> [(row: AssetBlob, staged: StagedBlob)] {
        let hashes = Set(held.values.joined().flatMap { $0.fields.values.flatMap(\.assets).compactMap(\.contentHash) })
        guard !hashes.isEmpty else { return [] }
        let missing = try self.environment(container, environment).read { reader in try hashes.filter { try reader.assetBlob($0) == nil } }
        guard !missing.isEmpty else { return [] }
        let rows = try backup.storage.read { reader in try missing.sorted().compactMap { try reader.assetBlob($0) } }
        let bytes = try backup.blobs(Set(rows.map(\.sha)))
        let space = EnvironmentKey(container: container, environment: environment)
        return try rows.compactMap { row in try bytes[row.sha].map { (row, try assetStore.stage(row.sha, $0, in: space)) } }
    }

    /// The records of the scope's zones (of its type, when it names one) as the backup `name`
    /// holds them, by zone name; a zone of the scope the backup holds is listed even when empty.
    private static func recordsHeld(in backup: BackupEnvironment, named name: String, database: DatabaseID, scope: HistoryScope) throws
        -> [String: [Record]]
    {
        return try backup.storage.read { reader in
            let zones =
                try scope.zoneName.map { zoneName in try reader.zone(named: zoneName, in: database).map { [$0] } ?? [] }
                ?? reader.zones(in: database)
            var held: [String: [Record]] = [:]
            if let zoneName = scope.zoneName, zones.isEmpty {
                // The default zone is there before its first record is: empty then.
                guard zoneName == ZoneID.defaultZoneName else {
                    throw CloudStoreError.notFound("The backup \(name) holds no zone \(zoneName) in the \(database) database")
                }
                held[zoneName] = []
            }
            for zone in zones {
                var records: [Record] = []
                try Self.eachRecord(in: zone, ofType: scope.recordType, reader: reader) { records.append($0.record) }
                held[zone.zoneID.zoneName] = records
            }
            return held
        }
    }
}
