import Crypto
import Synchronization

/// A store in one PostgreSQL database that several processes share: the catalog and request log
/// in schemas of their own, one schema per container environment. The processes tell each
/// other of their commits (``PostgresCrossProcess``), count each other by heartbeat
/// (``PostgresHeartbeat``), and the store is backed up with PostgreSQL's programs
/// (``PostgresBackup``), on a schedule by one of them at a time (``PostgresBackupElection``).
final class PostgresStorageBackend: StorageBackend, CrossProcessSignalling, StorageReadiness {
    /// The database's connections.
    let pool: PostgresPool
    let heartbeat: (any ProcessHeartbeat)?
    let backupElection: (any BackupElection)?
    let url: String
    private let catalogStore: PostgresCatalogStore
    private let requestLogStore: PostgresRequestLogStore
    private let numbering: PostgresChangeLog.Numbering
    /// What tells the other processes of this one's commits and hears theirs, once started.
    private let signals = Mutex<PostgresCrossProcess?>(nil)

    /// Opens (creating and migrating as needed) the catalog and request log in the database at
    /// `url`, and starts beating when `configuration` gives a heartbeat interval.
    init(url: String, _ configuration: CloudStoreConfiguration) throws {
        self.url = url
        pool = PostgresPool(url: url)
        catalogStore = try PostgresCatalogStore(pool: pool)
        try catalogStore.checkClusterIdentity()
        requestLogStore = try PostgresRequestLogStore(pool: pool)
        #if CUMULUS_NEGATIVE_CONTROLS
            numbering = configuration.unsafeNaiveChangeNumbering ? .naiveSequence(hold: 5_000) : .counterRow
        #else
            numbering = .counterRow
        #endif
        let pool = pool
        heartbeat = try configuration.heartbeatInterval.map { try PostgresHeartbeat(pool: pool, interval: $0) }
        backupElection = PostgresBackupElection(url: url)
    }

    deinit {
        heartbeat?.stop()
        stop()
    }

    var catalog: any CatalogStorage & CredentialStorage & OperatorStorage & LifecycleStorage & SeedStorage { catalogStore }

    var storageStatistics: StorageStatistics { StorageStatistics(pool: pool.statistics) }

    func requestLog(retention: Int64, limits: RequestLogLimits, clock: @escaping @Sendable () -> Int64) throws -> RequestLog {
        RequestLog(storage: requestLogStore, retention: retention, limits: limits, clock: clock)
    }

    /// The environment's schema.
    func environmentStorageName(_ container: ContainerIdentifier, _ environment: Environment) -> String {
        Self.environmentSchema(container, environment)
    }

    /// The PostgreSQL schema of an environment: its environment and a hash of its container,
    /// since a container's identifier may be longer than a PostgreSQL name may be.
    static func environmentSchema(_ container: ContainerIdentifier, _ environment: Environment) -> String {
        let digest = SHA256.hash(data: Array(container.rawValue.utf8))
        return "\(environment.rawValue)_" + SecureToken.hexString(Array(digest.prefix(10)))
    }

    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment) throws -> any EnvironmentStorage {
        let schemaName = Self.environmentSchema(container, environment)
        return try PostgresEnvironmentStore(
            pool: pool, schemaName: schemaName, concurrentIndexBuilds: environment == .production, numbering: numbering
        ) { [weak self] in
            self?.tell([PostgresCrossProcess.Item.schema(schemaName)])
        }
    }

    /// Nothing: the environment is in the database.
    func environmentFileBytes(_ container: ContainerIdentifier, _ environment: Environment) -> Int64 { 0 }

    var crossProcess: (any CrossProcessSignalling)? { self }
    var readiness: (any StorageReadiness)? { self }

    // MARK: - Processes sharing the database

    func start(heard: @escaping @Sendable (CrossProcessEvent) -> Void) {
        let catalog = catalogStore
        let cross = PostgresCrossProcess(url: url, pool: pool) { event in
            switch event {
            case .changed(let items):
                var tokens = Set<String>()
                for item in items {
                    if item == PostgresCrossProcess.Item.catalog {
                        catalog.invalidateCachedCounter()
                    } else if item.hasPrefix("s:") {
                        heard(.schemaChanged(String(item.dropFirst(2))))
                    } else if item.hasPrefix("t:") {
                        tokens.insert(String(item.dropFirst(2)))
                    }
                }
                if !tokens.isEmpty { heard(.notified(tokens)) }
            case .recheckAll:
                // A restore into this database, or a failover under it, while this process runs:
                // noticed here too, not only when the next process starts.
                _ = try? catalog.checkClusterIdentity()
                catalog.invalidateCachedCounter()
                heard(.recheckAll)
            }
        }
        signals.withLock { $0 = cross }
        catalog.afterWrite.withLock { afterWrite in
            afterWrite = { [weak self] in self?.tell([PostgresCrossProcess.Item.catalog]) }
        }
    }

    var isListening: Bool { signals.withLock { $0?.isListening ?? false } }

    func tell(tokens: [String]) { tell(tokens.map(PostgresCrossProcess.Item.token)) }

    /// Queues items for the other processes; nothing before ``start(heard:)``.
    private func tell(_ items: [String]) {
        signals.withLock { $0 }?.notifier.changed(items)
    }

    func stop() {
        signals.withLock { $0?.stop() }
    }

    // MARK: - Readiness

    /// The catalog's schema version against this program's.
    func schemaProblem() -> String? {
        do {
            let version = try pool.withConnection { try PostgresMigrator.version(of: PostgresCatalogMigrations.schema, on: $0) }
            if version != PostgresCatalogMigrations.migrator.migrations.count {
                return
                    "the database's schema is at version \(version), this program's at \(PostgresCatalogMigrations.migrator.migrations.count): run `cumulus migrate`"
            }
        } catch {
            return "the database does not answer"
        }
        return nil
    }
}
