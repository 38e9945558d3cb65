import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite database file as the store uses it: exactly one writer connection fed by a queue
/// (``SQLiteWriteQueue``), and a pool of reader connections that WAL lets run beside it.
final class SQLiteDatabase: Sendable {
    /// The file's path.
    let path: String
    private let synchronous: SynchronousMode
    private let writer: SQLiteWriteQueue
    /// Keeps the write-ahead log short, and counts its size and checkpoints.
    private let checkpointer: SQLiteCheckpointer
    /// Idle readers, in shards chosen by thread: each request thread mostly meets only itself at
    /// its shard's lock, where one shared pool made every reader queue behind the others.
    private let idleReaders: [ReaderShard]
    private let maximumIdleReadersPerShard: Int

    private static let shardCount = 16

    /// Opens the file, creating it and running `migrator` on first use.
    /// - Parameter checkpointer: keeps the write-ahead log short; by default one with the
    ///   standard thresholds.
    init(
        path: String, synchronous: SynchronousMode, migrator: SQLiteMigrator, maximumIdleReadersPerShard: Int = 2,
        checkpointer: SQLiteCheckpointer? = nil
    ) throws {
        self.path = path
        self.synchronous = synchronous
        self.maximumIdleReadersPerShard = maximumIdleReadersPerShard
        // Opening makes the file and its write-ahead log: a full disk refuses it as a full store.
        let connection = try Self.mapErrors { try SQLiteConnection(path: path, synchronous: synchronous) }
        try Self.mapErrors { try migrator.migrate(connection) }
        let checkpointer = checkpointer ?? SQLiteCheckpointer(path: path, synchronous: synchronous)
        checkpointer.attach(to: connection)
        self.checkpointer = checkpointer
        writer = SQLiteWriteQueue(connection: connection, name: path, pin: SQLiteReadMarkPin(path: path, synchronous: synchronous))
        idleReaders = (0..<Self.shardCount).map { _ in ReaderShard() }
    }

    /// The reader shard of the calling thread.
    private var shard: ReaderShard { idleReaders[ThreadShard.index(of: Self.shardCount)] }

    /// Runs `body` on the writer connection inside a `BEGIN IMMEDIATE` transaction (shared with
    /// other waiting writes, each in its own savepoint); everything `body` does commits together
    /// or not at all, and has committed when this returns.
    /// - Parameter exclusive: run alone in a transaction of its own (schema changes).
    func write<T: Sendable>(exclusive: Bool = false, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try writer.submit(exclusive: exclusive, body)
    }

    /// As `write`, but returns at once: `completion` gets the outcome after the commit, on the
    /// writer's thread (see ``SQLiteWriteQueue/enqueue(exclusive:_:completion:)``).
    func write<T: Sendable>(
        _ body: @escaping @Sendable (SQLiteConnection) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        writer.enqueue(body, completion: completion)
    }

    /// How the writer has grouped its jobs so far.
    var writeStatistics: WriteStatistics { writer.statistics }

    /// The write-ahead log's size and the checkpoints run so far.
    var logStatistics: StorageStatistics.Log { checkpointer.statistics }

    /// Runs `body` on a reader connection inside one read transaction, so that everything it
    /// reads comes from the same snapshot.
    func read<T>(_ body: (SQLiteConnection) throws -> T) throws -> T {
        let shard = shard
        let connection =
            try shard.idle.withLock { $0.popLast() }
            ?? Self.mapErrors {
                try SQLiteConnection(path: path, synchronous: synchronous)
            }
        defer {
            shard.idle.withLock { readers in
                if readers.count < maximumIdleReadersPerShard { readers.append(connection) }
            }
        }
        return try Self.mapErrors { try connection.transaction(immediate: false) { try body(connection) } }
    }

    /// Turns SQLite's errors into CloudStore's.
    private static func mapErrors<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as SQLiteError {
            throw error.cloudStoreError
        }
    }
}

/// One shard of a database's idle reader connections.
private final class ReaderShard: Sendable {
    let idle = Mutex<[SQLiteConnection]>([])
}
