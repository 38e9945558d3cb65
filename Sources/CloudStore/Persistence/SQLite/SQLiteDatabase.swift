import Synchronization

/// One SQLite database file as the store uses it: exactly one writer connection, which every
/// write waits its turn for, and a pool of reader connections that WAL lets run beside it.
final class SQLiteDatabase: Sendable {
    /// The file's path.
    let path: String
    private let synchronous: SynchronousMode
    private let writer: Mutex<SQLiteConnection>
    private let idleReaders: Mutex<[SQLiteConnection]>
    private let maximumIdleReaders: Int

    /// Opens the file, creating it and running `migrator` on first use.
    init(path: String, synchronous: SynchronousMode, migrator: SQLiteMigrator, maximumIdleReaders: Int = 8) throws {
        self.path = path
        self.synchronous = synchronous
        self.maximumIdleReaders = maximumIdleReaders
        let connection = try SQLiteConnection(path: path, synchronous: synchronous)
        try migrator.migrate(connection)
        writer = Mutex(connection)
        idleReaders = Mutex([])
    }

    /// Runs `body` on the writer connection inside one `BEGIN IMMEDIATE` transaction; everything
    /// `body` does commits together or not at all.
    func write<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { connection in
            try mapErrors { try connection.transaction { try body(connection) } }
        }
    }

    /// Runs `body` on the writer connection outside any transaction (for `VACUUM`, checkpoints…).
    func withWriter<T: Sendable>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.withLock { connection in try mapErrors { try body(connection) } }
    }

    /// Runs `body` on a reader connection inside one read transaction, so that everything it
    /// reads comes from the same snapshot.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let connection = try idleReaders.withLock { $0.popLast() } ?? mapErrors {
            try SQLiteConnection(path: path, synchronous: synchronous)
        }
        defer {
            idleReaders.withLock { readers in
                if readers.count < maximumIdleReaders { readers.append(connection) }
            }
        }
        return try mapErrors { try connection.transaction(immediate: false) { try body(connection) } }
    }

    /// Turns SQLite's errors into CloudStore's.
    private func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.cloudStoreError
        }
    }
}
