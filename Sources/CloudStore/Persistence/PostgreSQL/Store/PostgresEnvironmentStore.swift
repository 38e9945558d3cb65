import Foundation
import Synchronization

/// An environment's storage in one schema of a PostgreSQL database that several processes
/// share: reads on pooled connections, each on one snapshot; writes through this process's
/// ``PostgresWriteQueue``, whose group transactions number their changes last.
///
/// The schema catalog is cached across transactions and checked against the stored schema
/// version by every transaction; ``currentSchema()``, read before a request is decoded, trusts
/// the cache until this process changes the schema, another process says it did, or a second
/// has passed.
///
/// With `concurrentIndexBuilds` (production), a schema change commits without its new indexes,
/// which are then built concurrently before the write returns; opening the store rebuilds what
/// an interrupted build left invalid (``PostgresConcurrentIndexes``).
final class PostgresEnvironmentStore: EnvironmentStorage {
    /// The PostgreSQL schema holding the environment.
    let schemaName: String
    /// Whether indexes are built concurrently, after the schema change commits.
    let concurrentIndexBuilds: Bool
    private let pool: PostgresPool
    private let writer: PostgresWriteQueue
    private let numbering: PostgresChangeLog.Numbering
    private let cachedCatalog = ReadWriteLock<CachedCatalog?>(nil)

    private struct CachedCatalog {
        var catalog: SchemaCatalog
        /// When it was last known current, for ``currentSchema()``.
        var checked: Date
    }

    /// How long ``currentSchema()`` trusts its cache without a notification.
    static let schemaTrust: TimeInterval = 1

    /// Opens (creating and migrating as needed) the environment in `schemaName`.
    /// - Parameters:
    ///   - concurrentIndexBuilds: Whether schema changes build their indexes concurrently after
    ///     they commit; opening then also finishes builds that were interrupted.
    ///   - numbering: How change sequences are taken: only the tests that show the checker
    ///     catching skipped commits ask for anything but the counter row.
    ///   - schemaChanged: told after a transaction that changed the schema committed: to tell
    ///     the other processes.
    init(
        pool: PostgresPool, schemaName: String, concurrentIndexBuilds: Bool = false,
        numbering: PostgresChangeLog.Numbering = .counterRow, schemaChanged: @escaping @Sendable () -> Void = {}
    ) throws {
        self.schemaName = schemaName
        self.pool = pool
        self.concurrentIndexBuilds = concurrentIndexBuilds
        self.numbering = numbering
        let schema = PostgresIdentifier.quote(schemaName)
        try pool.withConnection { connection in
            _ = try PostgresEnvironmentMigrations.migrator.migrate(connection, schema: schemaName)
            #if CUMULUS_NEGATIVE_CONTROLS
                if case .naiveSequence = numbering {
                    try connection.execute("CREATE SEQUENCE IF NOT EXISTS \(schema).naive_seq")
                }
            #endif
        }
        if concurrentIndexBuilds {
            // Not waiting: a process building them now leaves nothing to do.
            try PostgresConcurrentIndexes.build(schema: schemaName, pool: pool, waiting: false)
        }
        let cache = cachedCatalog
        writer = PostgresWriteQueue(
            pool: pool, changeLog: PostgresChangeLog(schema: schema, numbering: numbering), name: schemaName,
            makeGroupState: { transaction in
                let catalog = try Self.catalog(on: transaction.connection, schemaName: schemaName, cache: cache)
                return PostgresEnvironmentSession(
                    connection: transaction.connection, schemaName: schemaName, catalog: catalog, transaction: transaction,
                    buildsIndexesLater: concurrentIndexBuilds)
            },
            committed: { transaction in
                if (transaction.groupState as? PostgresEnvironmentSession)?.changedSchema == true { schemaChanged() }
            })
    }

    func read<T: Sendable>(_ body: (any EnvironmentReader) throws -> T) throws -> T {
        try PostgresError.mapped {
            try pool.withConnection { connection in
                // The transaction begins and reads the schema version in one round trip.
                let version = try SchemaCatalog.schemaVersion(
                    from: connection.beginSnapshot(then: SchemaCatalog.schemaVersionSQL(schemaName)), schema: schemaName)
                do {
                    let catalog = try Self.catalog(version: version, on: connection, schemaName: schemaName, cache: cachedCatalog)
                    let value = try body(
                        PostgresEnvironmentSession(connection: connection, schemaName: schemaName, catalog: catalog, numbering: numbering))
                    try connection.commit()
                    return value
                } catch {
                    connection.rollback()
                    throw error
                }
            }
        }
    }

    func write<T: Sendable>(_ body: (any EnvironmentWriter) throws -> T) throws -> T {
        try write(exclusive: false, body)
    }

    func writeSchema<T: Sendable>(_ body: (any EnvironmentWriter) throws -> T) throws -> T {
        try write(exclusive: true, body)
    }

    func write<T: Sendable>(
        _ body: @escaping @Sendable (any EnvironmentWriter) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.enqueue({ [self] transaction in try run(body, in: transaction) }, completion: completion)
    }

    var writeStatistics: WriteStatistics { writer.statistics }

    /// Nothing of its own: its connections are the backend's pool's.
    var storageStatistics: StorageStatistics { StorageStatistics() }

    private func write<T: Sendable>(exclusive: Bool, _ body: (any EnvironmentWriter) throws -> T) throws -> T {
        let changedSchema = Atomic<Bool>(false)
        let result = try PostgresError.mapped {
            try writer.submit(exclusive: exclusive) { transaction in
                let result = try run(body, in: transaction)
                if (transaction.groupState as? PostgresEnvironmentSession)?.changedSchema == true {
                    changedSchema.store(true, ordering: .relaxed)
                }
                return result
            }
        }
        // Committed: the new indexes are built now, while writes go on, before the caller hears
        // that the change is done.
        if concurrentIndexBuilds && changedSchema.load(ordering: .relaxed) {
            try PostgresConcurrentIndexes.build(schema: schemaName, pool: pool)
        }
        return result
    }

    /// Runs a job's body on the group's session; a schema it changed replaces the cache at once.
    private func run<T>(_ body: (any EnvironmentWriter) throws -> T, in transaction: PostgresWriteTransaction) throws -> T {
        guard let session = transaction.groupState as? PostgresEnvironmentSession else {
            throw CloudStoreError.internalError("A write ran without its session")
        }
        let result = try body(session)
        if session.changedSchema { forgetSchema() }
        return result
    }

    func currentSchema() throws -> Schema {
        if let cached = cachedCatalog.read({ $0 }), Date().timeIntervalSince(cached.checked) < Self.schemaTrust {
            return cached.catalog.schema
        }
        return try read { try $0.schema() }
    }

    /// Forgets the cached catalog's freshness: another process (or this one) changed the schema.
    func forgetSchema() {
        cachedCatalog.write { cached in cached?.checked = .distantPast }
    }

    /// The catalog of the schema version `connection`'s transaction sees: the cached one while
    /// the version is the same.
    private static func catalog(on connection: PostgresConnection, schemaName: String, cache: ReadWriteLock<CachedCatalog?>) throws
        -> SchemaCatalog
    {
        try catalog(
            version: SchemaCatalog.schemaVersion(on: connection, schema: schemaName), on: connection, schemaName: schemaName, cache: cache)
    }

    /// The catalog of schema `version`, which `connection`'s transaction sees.
    private static func catalog(
        version: Int64, on connection: PostgresConnection, schemaName: String, cache: ReadWriteLock<CachedCatalog?>
    ) throws -> SchemaCatalog {
        if let cached = cache.read({ $0 }), cached.catalog.version == version {
            // Stamped at most every 100 ms: every read taking the write lock made them queue.
            let now = Date()
            if now.timeIntervalSince(cached.checked) > 0.1 { cache.write { $0?.checked = now } }
            return cached.catalog
        }
        let loaded = try SchemaCatalog.load(from: connection, schema: schemaName)
        cache.write { $0 = CachedCatalog(catalog: loaded, checked: Date()) }
        return loaded
    }
}
