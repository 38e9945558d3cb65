/// The one place that turns a configuration's ``DatabaseLocation`` into a backend, and answers
/// which capabilities each location has before any is opened.
enum StorageBackends {
    /// Opens the backend `configuration` names: its catalog, migrated, and what else it keeps open.
    static func open(_ configuration: CloudStoreConfiguration) throws -> any StorageBackend {
        switch configuration.database {
        case .dataDirectory: try SQLiteStorageBackend(configuration)
        case .postgres(let url): try PostgresStorageBackend(url: url, configuration)
        }
    }

    /// How the store `configuration` names is backed up and restored, with `options`.
    static func backup(_ configuration: CloudStoreConfiguration, _ options: BackupOptions) -> any StoreBackup {
        switch configuration.database {
        case .dataDirectory:
            SQLiteBackup(dataDirectory: configuration.dataDirectory, assetStorage: configuration.assetStorage, options: options)
        case .postgres(let url): PostgresBackup(url: url)
        }
    }
}
