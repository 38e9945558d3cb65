import Foundation
import Synchronization

/// CloudKit's storage and sync backend: containers, their environments and databases, zones,
/// records, schemas and change logs, kept by the storage backend its configuration chooses:
/// SQLite files under one data directory, or a PostgreSQL database several processes share.
///
/// `CloudStore` is safe to use from any thread, and from several processes on the same data
/// directory (the command line while the server runs): each sees the others' commits at once.
///
/// ```swift
/// let store = try CloudStore(configuration: .init(dataDirectory: "./data"))
/// let container = try ContainerIdentifier("iCloud.com.example.Notes")
/// _ = try store.createContainer(container)
/// let database = try store.database(container, .development, .public, as: .operator())
/// let results = try database.modify(ModifyRequest(operations: [
///     RecordOperation(.create, recordType: "Note", fields: ["title": .string("Hello")])
/// ]))
/// ```
public final class CloudStore: Sendable {
    /// The configuration the store was opened with.
    public let configuration: CloudStoreConfiguration
    let catalog: any CatalogStorage
    let credentials: any CredentialStorage
    let operatorStorage: any OperatorStorage
    let lifecycleStorage: any LifecycleStorage
    /// Seeds and personal fields.
    let seedStorage: any SeedStorage
    /// Every API call, in the backend's request log (`requests.sqlite` of the data directory on SQLite).
    public let requestLog: RequestLog
    let credentialCache = CredentialCache()
    /// Seals continuation markers.
    let markerSigner: OpaqueTokenSigner
    /// Seals sync tokens.
    let syncTokenSigner: OpaqueTokenSigner
    /// Seals asset upload tickets, receipts and download tickets.
    let assetSigner: OpaqueTokenSigner
    /// Seals the notices console pages leave for the next page.
    let noticeSigner: OpaqueTokenSigner
    /// Where asset blobs' bytes are kept.
    let assetStore: any AssetStore
    let webAuthTokenKey: PreparedMAC
    /// Web auth tokens opened and handed out lately.
    let webAuthTokens: WebAuthTokenCache
    /// Slows password guessing per account and address.
    let signInThrottle = SignInThrottle()
    /// When sessions were last used.
    let sessionActivity = SessionActivity()
    /// The threads passwords are hashed on, apart from request threads.
    let passwordPool: BoundedThreadPool
    /// Push tokens no user holds, per client address: 10 a minute, 20 at once, shared among the
    /// live processes.
    let pushTokenLimiter = KeyedRateLimiter<String>(ratePerSecond: 10.0 / 60, burst: 20)
    /// Each environment's limits, as last read from the catalog.
    let limitsCache = LimitsCache()
    /// What the store counts for its metrics.
    let counters = StoreCounters()
    /// Each environment's request rate, at the rate of its limits (the defaults here are unused).
    let requestThrottle = KeyedRateLimiter<EnvironmentKey>(ratePerSecond: EnvironmentLimits.standard.requestsPerSecond, burst: 1)
    /// The environments opened so far, by container and environment.
    let environments = ReadWriteLock<[EnvironmentKey: any EnvironmentStorage]>([:])
    /// Where the catalog, environments and request log are kept, and what else the database can do.
    let backend: any StorageBackend
    /// The last backup this process took, for ``lastBackup``.
    let lastBackupState = Mutex<LastBackup?>(nil)
    /// Held while this process takes a backup into its backup location: backups asked for at
    /// once are taken one after the other, each under a name of its own (names say the
    /// millisecond a backup began).
    let backupTaking = Mutex<Void>(())
    /// Told when notifications may have been missed, so that every waiter reads again.
    let recheckListeners = Mutex<[@Sendable () -> Void]>([])
    /// Told, after each commit that queued notifications, which push tokens got some.
    let notificationListeners = Mutex<[@Sendable (Set<String>) -> Void]>([])

    /// The catalog's file name inside the data directory.
    public static let catalogFileName = "cumulus.sqlite"
    /// The request log's file in the data directory.
    public static let requestLogFileName = "requests.sqlite"

    /// Opens the store in `configuration.dataDirectory`, creating the directory and catalog if needed.
    public convenience init(configuration: CloudStoreConfiguration) throws {
        try Self.makePrivateDirectory(configuration.dataDirectory)
        // The backend first: opening it completes a restore that was killed before `containers/`
        // was swapped in.
        let backend = try StorageBackends.open(configuration)
        try Self.makePrivateDirectory(configuration.dataDirectory + "/containers")
        try self.init(configuration: configuration, backend: backend)
    }

    /// Opens the store on `backend`, opened for `configuration`.
    init(configuration: CloudStoreConfiguration, backend: any StorageBackend) throws {
        self.configuration = configuration
        self.backend = backend
        passwordPool = BoundedThreadPool(
            name: "cumulus-passwords", threads: configuration.passwordHashingThreads, capacity: configuration.passwordHashingQueue)
        let catalog = backend.catalog
        self.catalog = catalog
        self.credentials = catalog
        self.operatorStorage = catalog
        self.lifecycleStorage = catalog
        self.seedStorage = catalog
        self.requestLog = try backend.requestLog(
            retention: configuration.requestLogRetention,
            limits: RequestLogLimits(
                maximumBytes: configuration.requestLogMaximumBytes, sampledReadsPerSecond: configuration.requestLogSampledReadsPerSecond,
                warning: configuration.requestLogWarning),
            clock: configuration.clock)
        let secret = try catalog.secret()
        self.markerSigner = OpaqueTokenSigner(secret: secret, purpose: .continuationMarker)
        self.syncTokenSigner = OpaqueTokenSigner(secret: secret, purpose: .syncToken)
        self.assetSigner = OpaqueTokenSigner(secret: secret, purpose: .assets)
        self.noticeSigner = OpaqueTokenSigner(secret: secret, purpose: .consoleNotices)
        self.assetStore = Self.makeAssetStore(configuration)
        self.webAuthTokenKey = WebAuthToken.key(from: secret)
        self.webAuthTokens = WebAuthTokenCache(key: webAuthTokenKey)
        requestLog.usage.measureStorage { [weak self] key in
            guard let self, let container = try? ContainerIdentifier(key.container),
                let environment = Environment(rawValue: key.environment)
            else { return nil }
            return try? self.storedBytes(container, environment)
        }
        startCrossProcess()
    }

    deinit {
        passwordPool.stop()
        backend.heartbeat?.stop()
        backend.crossProcess?.stop()
    }

    /// The current time, in milliseconds since 1970.
    var now: Int64 { configuration.clock() }

    // MARK: - Containers

    /// Creates a container with its development and production environments.
    /// - Throws: ``CloudStoreError/exists(_:)`` when it already exists.
    @discardableResult
    public func createContainer(_ identifier: ContainerIdentifier, by actor: OperatorIdentity? = nil) throws -> ContainerInfo {
        let created = now
        let info = try auditedCatalogChange(actor, "container.create", container: identifier.rawValue, target: identifier.rawValue) {
            try catalog.createContainer(identifier, created: created)
        }
        for environment in Environment.allCases {
            _ = try self.environment(identifier, environment)
        }
        return info
    }

    /// Every container, sorted by identifier.
    public func containers() throws -> [ContainerInfo] { try catalog.containers() }

    /// The container with `identifier`, or `nil`.
    public func container(_ identifier: ContainerIdentifier) throws -> ContainerInfo? { try catalog.container(identifier) }

    /// Drops the cached schema of the environment whose storage the backend calls `name` (of
    /// every environment when `nil`): another process changed it, or may have.
    func forgetSchema(named name: String?) {
        for (key, storage) in environments.read({ Array($0) }) {
            guard name == nil || backend.environmentStorageName(key.container, key.environment) == name else { continue }
            storage.forgetSchema()
        }
    }

    /// The storage of a container's environment, opened on first use.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when the container does not exist.
    func environment(_ container: ContainerIdentifier, _ environment: Environment) throws -> any EnvironmentStorage {
        let key = EnvironmentKey(container: container, environment: environment)
        if let open = environments.read({ $0[key] }) { return open }
        guard try catalog.container(container) != nil else {
            throw CloudStoreError.notFound("Container \(container) does not exist")
        }
        let storage = try backend.openEnvironment(container, environment)
        // What a change left in the outbox before a crash joins the audit trail now.
        moveAuditOutbox(of: storage)
        return environments.write { open in
            if let raced = open[key] { return raced }
            open[key] = storage
            return storage
        }
    }

    // MARK: - Databases

    /// A database of a container's environment, as `caller` sees it.
    /// - Parameter trace: where the handle's access decisions are recorded, from this check on.
    public func database(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, as caller: Caller,
        trace: RequestTrace? = nil
    ) throws -> CloudDatabase {
        let policy = AccessPolicy(caller: caller, database: database, trace: trace)
        try policy.checkAccess()
        // An operator acts as a user only to develop: in production a user's data is theirs alone.
        try policy.checkOperatorActsInDevelopment(environment)
        var handle = CloudDatabase(
            store: self, storage: try self.environment(container, environment), container: container,
            environment: environment, database: database, caller: caller)
        handle.accessTrace = trace
        return handle
    }

    /// The caller's own database of `scope`: the public database, or the caller's private or
    /// shared database.
    /// - Throws: ``CloudStoreError/authenticationRequired(_:)`` when a private or shared database is
    ///   asked for without a user.
    /// - Parameter trace: where the handle's access decisions are recorded, from this check on.
    public func database(
        _ container: ContainerIdentifier, _ environment: Environment, _ scope: DatabaseScope, as caller: Caller,
        trace: RequestTrace? = nil
    ) throws -> CloudDatabase {
        switch scope {
        case .public:
            return try self.database(container, environment, database: .public, as: caller, trace: trace)
        case .private, .shared:
            // Without a user the database is no one's: the access check refuses the world.
            let owner = caller.userRecordName ?? ""
            return try self.database(container, environment, database: DatabaseID(scope: scope, owner: owner), as: caller, trace: trace)
        }
    }

    // MARK: - Schema

    /// The schema of a container's environment.
    public func schema(_ container: ContainerIdentifier, _ environment: Environment) throws -> Schema {
        try self.environment(container, environment).currentSchema()
    }
}
