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

    /// How stores at `location` are backed up and restored; `nil` where cumulus does not (the
    /// data directory is copied whole instead).
    static func backup(_ location: DatabaseLocation) -> (any StoreBackup)? {
        switch location {
        case .dataDirectory: nil
        case .postgres(let url): PostgresBackup(url: url)
        }
    }
}
