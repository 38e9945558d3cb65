import Synchronization

/// An environment's storage in one SQLite file: the writer and readers of `SQLiteDatabase`, and
/// the schema catalog cached across transactions until the stored schema version moves.
final class SQLiteEnvironmentStore: EnvironmentStorage {
    private let database: SQLiteDatabase
    private let cachedCatalog = Mutex<SchemaCatalog?>(nil)

    /// Opens (creating and migrating as needed) the environment file at `path`.
    init(path: String, synchronous: SynchronousMode) throws {
        database = try SQLiteDatabase(path: path, synchronous: synchronous, migrator: EnvironmentMigrations.migrator)
    }

    func read<T: Sendable>(_ body: (any EnvironmentReader) throws -> T) throws -> T {
        try database.read { connection in
            try body(SQLiteEnvironmentSession(connection: connection, catalog: try catalog(on: connection)))
        }
    }

    func write<T: Sendable>(_ body: (any EnvironmentWriter) throws -> T) throws -> T {
        try database.write { connection in
            let session = SQLiteEnvironmentSession(connection: connection, catalog: try catalog(on: connection))
            let result = try body(session)
            try session.flushStats()
            try session.flushZoneLog()
            return result
        }
    }

    func writeSchema<T: Sendable>(_ body: (any EnvironmentWriter) throws -> T) throws -> T {
        try database.write(exclusive: true) { connection in
            let session = SQLiteEnvironmentSession(connection: connection, catalog: try catalog(on: connection))
            let result = try body(session)
            try session.flushStats()
            try session.flushZoneLog()
            return result
        }
    }

    /// The catalog for the schema version `connection` sees, from the cache when it is current.
    /// A schema changed by another connection or process moves the version, so it is reloaded.
    private func catalog(on connection: SQLiteConnection) throws -> SchemaCatalog {
        let version = try SQLiteEnvironmentSession.schemaVersion(on: connection)
        if let cached = cachedCatalog.withLock({ $0 }), cached.version == version { return cached }
        let loaded = try SchemaCatalog.load(from: connection, version: version)
        // A version that differs from the cache replaces it, older or newer: after a group
        // commit fails, the catalog of its rolled-back version must not outlive it.
        cachedCatalog.withLock { $0 = loaded }
        return loaded
    }
}
