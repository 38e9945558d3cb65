import Foundation

/// A store in SQLite files under the data directory: the catalog, the request log, and one file
/// per container environment. Every process on the directory sees the others' commits in the
/// files themselves, so it signals nothing and has no heartbeat. It holds the directory's lock
/// shared while open, so that a restore never replaces the files under it, and completes the swap
/// of a restore that was killed in it before opening anything.
final class SQLiteStorageBackend: StorageBackend {
    let catalog: any CatalogStorage & CredentialStorage & OperatorStorage & LifecycleStorage & SeedStorage
    /// The catalog's file, whose log metrics count with the environments'.
    private let catalogDatabase: SQLiteDatabase
    private let dataDirectory: String
    private let synchronous: SynchronousMode
    private let lock: DataDirectoryLock

    /// Opens (creating and migrating as needed) the catalog in `configuration.dataDirectory`,
    /// which exists.
    init(_ configuration: CloudStoreConfiguration) throws {
        synchronous = configuration.synchronous
        let dataDirectory = configuration.dataDirectory
        self.dataDirectory = dataDirectory
        if SQLiteRestore.hasInterruptedSwap(in: dataDirectory) {
            // A restore was killed while swapping the files in: it is completed before anything
            // opens them, by whichever process comes first.
            let exclusive = try DataDirectoryLock(dataDirectory, exclusive: true)
            try withExtendedLifetime(exclusive) { try SQLiteRestore.completeInterruptedSwap(in: dataDirectory) }
        }
        lock = try DataDirectoryLock(dataDirectory, exclusive: false)
        let catalogStore = try SQLiteCatalogStore(path: dataDirectory + "/" + CloudStore.catalogFileName, synchronous: synchronous)
        catalog = catalogStore
        catalogDatabase = catalogStore.database
    }

    func requestLog(retention: Int64, limits: RequestLogLimits, clock: @escaping @Sendable () -> Int64) throws -> RequestLog {
        let path = "\(dataDirectory)/\(CloudStore.requestLogFileName)"
        let synchronous = synchronous
        return RequestLog(
            opening: { try SQLiteRequestLogStore(path: path, synchronous: synchronous) }, retention: retention, limits: limits, clock: clock
        )
    }

    /// The path of the environment's file.
    func environmentStorageName(_ container: ContainerIdentifier, _ environment: Environment) -> String {
        Self.environmentPath(in: dataDirectory, container, environment)
    }

    /// The path of an environment's file in `dataDirectory`.
    static func environmentPath(in dataDirectory: String, _ container: ContainerIdentifier, _ environment: Environment) -> String {
        "\(dataDirectory)/containers/\(container.rawValue)/\(environment.rawValue).sqlite"
    }

    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment) throws -> any EnvironmentStorage {
        try CloudStore.makePrivateDirectory("\(dataDirectory)/containers/\(container.rawValue)")
        return try SQLiteEnvironmentStore(path: environmentStorageName(container, environment), synchronous: synchronous)
    }

    /// The environment's file and its write-ahead log.
    func environmentFileBytes(_ container: ContainerIdentifier, _ environment: Environment) -> Int64 {
        let path = environmentStorageName(container, environment)
        return [path, path + "-wal"].reduce(Int64(0)) { total, file in
            total + ((try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? 0)
        }
    }

    var crossProcess: (any CrossProcessSignalling)? { nil }
    var readiness: (any StorageReadiness)? { nil }
    var heartbeat: (any ProcessHeartbeat)? { nil }
    var backupElection: (any BackupElection)? { nil }
    var storageStatistics: StorageStatistics { StorageStatistics(log: catalogDatabase.logStatistics) }
}
