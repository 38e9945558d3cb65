/// Where a ``CloudStore`` keeps its catalog, its environments and its request log, and what
/// else its database can do. The store receives one when it opens and names no database after
/// that: what differs between SQLite files and a shared PostgreSQL database is answered here.
///
/// The optional capabilities are `nil` where a backend lacks them; the store then answers as
/// it always has for a single process on files (see ``StorageBackends``, which picks one).
protocol StorageBackend: Sendable {
    /// The catalog: containers, credentials, operators and server-wide settings.
    var catalog: any CatalogStorage & CredentialStorage & OperatorStorage & LifecycleStorage & SeedStorage { get }

    /// The request log, keeping entries for `retention` milliseconds as `clock` tells the time,
    /// within `limits`.
    func requestLog(retention: Int64, limits: RequestLogLimits, clock: @escaping @Sendable () -> Int64) throws -> RequestLog

    /// What the backend calls the storage of a container's environment: its file, or its schema.
    func environmentStorageName(_ container: ContainerIdentifier, _ environment: Environment) -> String

    /// Opens (creating and migrating as needed) the storage of a container's environment.
    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment) throws -> any EnvironmentStorage

    /// Opens the container environment as the backup file at `path` holds it, to read it,
    /// working in `workDirectory` (private; the caller removes it afterwards); `nil` when the
    /// backup holds no such environment. The caller calls ``BackupEnvironment/close`` when done.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when `path` is not a backup of this backend,
    ///   or is damaged.
    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment, inBackup path: String, workDirectory: String) throws
        -> BackupEnvironment?

    /// Bytes the environment's files take in the data directory; 0 when it is kept elsewhere.
    func environmentFileBytes(_ container: ContainerIdentifier, _ environment: Environment) -> Int64

    /// How processes sharing the database tell each other of their commits; `nil` where every
    /// process sees the others' commits by itself.
    var crossProcess: (any CrossProcessSignalling)? { get }

    /// Checks beyond an answering catalog that the database can serve; `nil` when there are none.
    var readiness: (any StorageReadiness)? { get }

    /// This process's heartbeat among those sharing the database; `nil` when there is one
    /// process, or it serves no requests.
    var heartbeat: (any ProcessHeartbeat)? { get }

    /// Which of the processes sharing the database takes the scheduled backups; `nil` when
    /// there is one process (it takes them all).
    var backupElection: (any BackupElection)? { get }

    /// What the backend counts beside its environments (its connection pool), for metrics.
    var storageStatistics: StorageStatistics { get }
}
