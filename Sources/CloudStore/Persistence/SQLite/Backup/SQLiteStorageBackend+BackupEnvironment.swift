extension SQLiteStorageBackend {
    /// Unpacks the environment's file alone from the archive (checked against the manifest:
    /// the file by its SHA-256, every other member by its size), and opens it, migrated to this
    /// program's schema when the backup is older.
    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment, inBackup path: String, workDirectory: String) throws
        -> BackupEnvironment?
    {
        let member = "containers/\(container.rawValue)/\(environment.rawValue).sqlite"
        let manifest = try BackupArchiveReader.unpack(path, into: workDirectory, only: { $0 == member })
        guard manifest.files.contains(where: { $0.path == member }) else { return nil }
        let storage = try SQLiteEnvironmentStore(path: "\(workDirectory)/\(member)", synchronous: .normal)
        return BackupEnvironment(storage: storage, close: {})
    }
}
