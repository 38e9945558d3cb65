import Synchronization

/// An environment's storage in one SQLite file: the writer and readers of `SQLiteDatabase`, and
/// the schema catalog cached across transactions until the stored schema version moves.
final class SQLiteEnvironmentStore: EnvironmentStorage {
    let database: SQLiteDatabase
    /// Read by every request, written when the schema changes: a reader-writer lock, so that
    /// workers never queue behind each other to read it.
    private let cachedCatalog = ReadWriteLock<CachedCatalog?>(nil)
    /// Moved, by every process that opens this file, after each commit that changed the schema.
    private let schemaSignal: SQLiteSharedChangeSignal?
    /// The zones read transactions have found.
    private let zoneCache = SQLiteZoneCache()

    private struct CachedCatalog {
        var catalog: SchemaCatalog
        /// The schema signal's mark taken before the transaction the catalog came from began,
        /// or `nil` when that order is not known (a catalog loaded inside any transaction).
        var mark: SQLiteSharedChangeSignal.Mark?
    }

    /// Opens (creating and migrating as needed) the environment file at `path`.
    init(path: String, synchronous: SynchronousMode) throws {
        database = try SQLiteDatabase(path: path, synchronous: synchronous, migrator: SQLiteEnvironmentMigrations.migrator)
        schemaSignal = SQLiteSharedChangeSignal(path: path + "-schema-changes")
    }

    func currentSchema() throws -> Schema {
        if let schemaSignal, let cached = cachedCatalog.read({ $0 }), let mark = cached.mark, schemaSignal.isCurrent(mark) {
            return cached.catalog.schema
        }
        // Every change signalled before this mark committed before the transaction below began,
        // so its catalog is at least that new; a later change moves the signal past the mark.
        let mark = schemaSignal?.mark()
        let catalog = try database.read { try self.catalog(readingOn: $0).catalog }
        cachedCatalog.write { cached in
            guard cached == nil || cached!.catalog.version == catalog.version else { return }
            cached = CachedCatalog(catalog: catalog, mark: mark)
        }
        return catalog.schema
    }

    /// Nothing to do: every process that changes the schema moves the file's schema signal,
    /// which ``currentSchema()`` checks.
    func forgetSchema() {}

    func read<T: Sendable>(_ body: (any EnvironmentReader) throws -> T) throws -> T {
        try database.read { connection in
            let (catalog, zonesGeneration) = try catalog(readingOn: connection)
            return try body(SQLiteEnvironmentSession(connection: connection, catalog: catalog, zoneCache: (zoneCache, zonesGeneration)))
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
        database.write({ [self] connection in try run(body, on: connection) }) { [self] result in
            completion(result.map(committed))
        }
    }

    var writeStatistics: WriteStatistics { database.writeStatistics }

    var storageStatistics: StorageStatistics { StorageStatistics(log: database.logStatistics) }

    private func write<T: Sendable>(exclusive: Bool, _ body: (any EnvironmentWriter) throws -> T) throws -> T {
        committed(try database.write(exclusive: exclusive) { connection in try run(body, on: connection) })
    }

    /// A write job's result once its transaction has ended, telling every process of a schema
    /// change: after the commit, so that whoever sees the signal reads the new schema. (A change
    /// rolled back with its group is signalled too; readers then only read again.)
    private func committed<T>(_ outcome: (result: T, changedSchema: Bool)) -> T {
        if outcome.changedSchema { schemaSignal?.signal() }
        return outcome.result
    }

    /// Runs a write job's body in a session on the writer connection; also says whether the
    /// job changed the schema.
    private func run<T>(_ body: (any EnvironmentWriter) throws -> T, on connection: SQLiteConnection) throws -> (T, Bool) {
        // In a group, the jobs share one session: its catalog, and the counts and zone log it
        // writes once for all of them before the group commits.
        if connection.inWriteGroup {
            let session: SQLiteEnvironmentSession
            if let shared = connection.writeGroupState as? SQLiteEnvironmentSession {
                session = shared
            } else {
                session = try writerSession(on: connection)
                connection.writeGroupState = session
            }
            let version = session.catalog.version
            let result = try body(session)
            return (result, session.catalog.version != version)
        }
        let session = try writerSession(on: connection)
        let version = session.catalog.version
        let result = try body(session)
        try session.flushStats()
        try session.flushZoneLog()
        return (result, session.catalog.version != version)
    }

    /// A session for a write transaction on the writer connection, with the writer's memory of
    /// zones, emptied first if another connection committed or a zone changed since it was kept.
    private func writerSession(on connection: SQLiteConnection) throws -> SQLiteEnvironmentSession {
        let versions = try SQLiteEnvironmentSession.versions(writingOn: connection)
        let memo = connection.writerMemory
        memo.check(SQLiteWriterMemo.Validity(dataVersion: versions.data, zonesGeneration: versions.zones))
        return SQLiteEnvironmentSession(
            connection: connection, catalog: try catalog(version: versions.schema, on: connection), writerMemo: memo)
    }

    /// The catalog for the schema version a reader's `connection` sees, and the zones generation
    /// it sees.
    private func catalog(readingOn connection: SQLiteConnection) throws -> (catalog: SchemaCatalog, zonesGeneration: Int64) {
        let versions = try SQLiteEnvironmentSession.versions(readingOn: connection)
        return (try catalog(version: versions.schema, on: connection), versions.zones)
    }

    /// The catalog for schema version `version`, which `connection` sees: from the cache when it
    /// is current. A schema changed by another connection or process moves the version, so it is
    /// reloaded.
    private func catalog(version: Int64, on connection: SQLiteConnection) throws -> SchemaCatalog {
        if let cached = cachedCatalog.read({ $0 }), cached.catalog.version == version { return cached.catalog }
        let loaded = try SchemaCatalog.load(from: connection, version: version)
        // A version that differs from the cache replaces it, older or newer: after a group
        // commit fails, the catalog of its rolled-back version must not outlive it. Loaded
        // inside any transaction, it is not known to be current: the next `currentSchema`
        // reads again.
        cachedCatalog.write { $0 = CachedCatalog(catalog: loaded, mark: nil) }
        return loaded
    }
}
