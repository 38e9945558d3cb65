import CloudStore

extension ManagementActions {
    /// The server's backups in its backup location, newest first.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when the server has no backup location.
    public func backups(as actor: OperatorIdentity) throws -> BackupsView {
        guard let schedule = store.configuration.backups else {
            throw CloudStoreError.badRequest("This server has no backup location (--backup-to)")
        }
        return BackupsView(schedule, try store.backups())
    }

    /// Takes a backup now into the backup location (the oldest beyond the kept number deleted).
    public func takeBackup(as actor: OperatorIdentity) throws -> BackupView {
        BackupView(try store.takeBackup(by: actor))
    }

    /// Deletes a backup from the backup location.
    public func deleteBackup(_ name: String, as actor: OperatorIdentity) throws -> BackupDeletion {
        try store.deleteBackup(named: name, by: actor)
        return BackupDeletion(name: name)
    }

    /// A backup's content, to send as a download.
    public func downloadBackup(_ name: String, as actor: OperatorIdentity) throws -> BackupContent {
        try store.backupContent(named: name, by: actor)
    }

    /// Brings a zone, or a record type, of a database back to what the backup `name` holds of
    /// it, on the running server; with `dryRun` only says what it would change.
    public func restoreFromBackup(
        _ name: String, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        zone: String?, type: String?, dryRun: Bool, as actor: OperatorIdentity
    ) throws -> RestoreView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        return RestoreView(
            try store.restoreFromBackup(
                named: name, identifier, environment, in: HistoryScope(database: target, zoneName: zone, recordType: type), dryRun: dryRun,
                by: actor))
    }
}
