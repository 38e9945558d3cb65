import CSQLite
import CSQLiteSupport

#if canImport(Glibc)
    import Glibc
#endif

/// One SQLite connection with its cache of prepared statements.
///
/// A connection is not shared: the writer and the reader pool hand each connection to one thread
/// at a time. It is `@unchecked Sendable` so that it can move between those threads; the pool's
/// lock orders every hand-over, so no two threads ever use it at once.
final class SQLiteConnection: @unchecked Sendable {
    let handle: OpaquePointer
    let path: String
    // The statement caches are not checked for overlapping access at run time (every request
    // asks for several statements): a connection is used by one thread at a time, and only
    // `statement(_:)` and `clearStatementCache()` touch them, neither calling the other.
    @exclusivity(unchecked) private var statements: [String: SQLiteStatement] = [:]
    /// The statements last asked for, found by the address of the text they were asked with
    /// before any hashing: nearly every statement's text is a constant, so the same storage comes
    /// back each time, and hashing a long text on every ask cost more than the rest of a lookup.
    /// Each entry keeps its text alive, so that no other text can take its address meanwhile.
    @exclusivity(unchecked) private var recent: [(sql: String, address: UnsafeRawPointer, statement: SQLiteStatement)] = []
    @exclusivity(unchecked) private var nextRecent = 0
    /// Statements of texts of at most 15 bytes (`BEGIN DEFERRED`, `COMMIT`, `SAVEPOINT op`), which
    /// have no storage to find them by: such a text lives in the value, and comparing two is
    /// comparing two words, where hashing one for the dictionary cost every transaction twice.
    @exclusivity(unchecked) private var short: [(sql: String, statement: SQLiteStatement)] = []
    private static let recentLimit = 16
    /// The texts of the plain queries run on this connection, by shape: the same text for the
    /// same shape, so its statement is found among the recent ones by address.
    var queryTexts = SQLiteQueryTextCache()
    /// The environment file's schema version and zones generation as this connection last read
    /// them, at the data version it read them at (see ``SQLiteEnvironmentSession/versions(readingOn:)``).
    var versionsSeen: (dataVersion: Int64, schema: Int64, zones: Int64)?
    /// On the writer connection, what it remembers of zones and subscriptions across
    /// transactions (see ``SQLiteWriterMemo``); made when a write first asks for it.
    lazy var writerMemory = SQLiteWriterMemo()
    /// Whether the writer is running a group of jobs in one transaction on this connection.
    var inWriteGroup = false
    /// What the jobs of that group share (see ``SQLiteWriteQueue``).
    var writeGroupState: (any SQLiteWriteGroupState)?
    /// What the write transaction under way keeps in memory until it commits; cleared as every
    /// transaction begins and ends, told only of a commit.
    var transactionMemory: (any SQLiteTransactionMemory)?
    /// The checkpointer SQLite reports this connection's commits to, kept alive as long as the
    /// connection: the log hook holds only an unretained pointer to it.
    var walCommitObserver: SQLiteCheckpointer?

    /// Opens (creating if needed) the database at `path` in WAL mode. A new file is made
    /// readable and writable by its owner only (0600); SQLite gives its `-wal` and `-shm` files
    /// the same mode.
    init(path: String, synchronous: SynchronousMode = .normal, busyTimeoutMilliseconds: Int32 = 5_000) throws(SQLiteError) {
        // A new file is made here rather than by SQLite, which would create it 0644 less the
        // umask. Only a file that does not exist yet: closing a descriptor of a file this
        // process has open in SQLite would drop every POSIX lock the process holds on it, and
        // another process could then checkpoint and delete the WAL under our readers.
        Self.processSettings
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if descriptor >= 0 { close(descriptor) }
        var handle: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let code = sqlite3_open_v2(path, &handle, flags, nil)
        guard code == SQLITE_OK, let handle else {
            let message = handle.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open database"
            if let handle { sqlite3_close_v2(handle) }
            throw SQLiteError(code: code, extendedCode: code, message: "\(message) (\(path))", sql: nil)
        }
        self.handle = handle
        self.path = path
        sqlite3_extended_result_codes(handle, 1)
        // The busy timeout comes first, so that even setting WAL mode waits for other processes.
        sqlite3_busy_timeout(handle, busyTimeoutMilliseconds)
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=\(synchronous.rawValue)")
        try execute("PRAGMA temp_store=MEMORY")
        // Checkpoint every 4,000 WAL pages (16 MB) rather than SQLite's 1,000: each checkpoint
        // copies pages back and syncs, and writes in batches touch many pages per commit. (The
        // server's writers checkpoint in the background instead: see SQLiteCheckpointer.)
        try execute("PRAGMA wal_autocheckpoint=4000")
        try execute("PRAGMA cache_size=-16000")
        try execute("PRAGMA foreign_keys=OFF")
        registerFunctions()
    }

    /// Settings SQLite takes once per process, before its first connection: made when the
    /// first connection opens. Its memory statistics are turned off: nothing reads them, and
    /// they serialise every allocation of every connection on one mutex (about 37 of a read's
    /// 41 mutex acquisitions), which the workers contend for. Its small allocations are kept per
    /// thread for reuse: Debian's build has no lookaside memory, so each was a `malloc` and a
    /// `free` (about 70 per record written).
    private static let processSettings: Void = {
        _ = CSQLiteSupport_disableMemoryStatistics()
        _ = CSQLiteSupport_installAllocator()
    }()

    deinit {
        clearStatementCache()
        sqlite3_close_v2(handle)
    }

    /// An error built from the connection's last message.
    func error(code: Int32, sql: String?) -> SQLiteError {
        SQLiteError(
            code: code & 0xFF, extendedCode: sqlite3_extended_errcode(handle),
            message: String(cString: sqlite3_errmsg(handle)), sql: sql, systemErrno: sqlite3_system_errno(handle))
    }

    // MARK: - Executing

    /// Runs one or more SQL statements that take no parameters.
    func execute(_ sql: String) throws(SQLiteError) {
        var message: UnsafeMutablePointer<CChar>?
        let code = sqlite3_exec(handle, sql, nil, nil, &message)
        guard code == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? "error"
            sqlite3_free(message)
            throw SQLiteError(code: code & 0xFF, extendedCode: code, message: text, sql: sql, systemErrno: sqlite3_system_errno(handle))
        }
    }

    /// The cached prepared statement for `sql`, preparing it on first use.
    func statement(_ sql: String) throws(SQLiteError) -> SQLiteStatement {
        let address = Self.storageAddress(of: sql)
        if let address {
            for entry in recent where entry.address == address && entry.sql.utf8.count == sql.utf8.count { return entry.statement }
        } else {
            for entry in short where entry.sql == sql { return entry.statement }
        }
        let statement: SQLiteStatement
        if let cached = statements[sql] {
            statement = cached
        } else {
            statement = try SQLiteStatement(connection: self, sql: sql)
            statements[sql] = statement
        }
        if let address {
            if recent.count < Self.recentLimit {
                recent.append((sql, address, statement))
            } else {
                recent[nextRecent] = (sql, address, statement)
                nextRecent = (nextRecent + 1) % Self.recentLimit
            }
        } else if short.count < Self.recentLimit {
            short.append((sql, statement))
        }
        return statement
    }

    /// Where the text of `sql` is stored, for a text with storage of its own (longer than 15
    /// bytes); `nil` for a short text, whose bytes live in the value itself.
    private static func storageAddress(of sql: String) -> UnsafeRawPointer? {
        guard sql.utf8.count > 15 else { return nil }
        return sql.utf8.withContiguousStorageIfAvailable { UnsafeRawPointer($0.baseAddress) } ?? nil
    }

    /// Drops cached statements, for example after tables they used were dropped.
    func clearStatementCache() {
        statements.removeAll()
        recent.removeAll()
        short.removeAll()
        nextRecent = 0
    }

    /// The rowid of the last inserted row.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Rows changed by the last statement.
    var changes: Int { Int(sqlite3_changes(handle)) }

    // MARK: - Transactions

    /// Runs `body` in a transaction: `BEGIN IMMEDIATE` takes the write lock up front, so the
    /// transaction never fails half-way for a lock. Rolls back if `body` throws.
    func transaction<T>(immediate: Bool = true, _ body: () throws -> T) throws -> T {
        try statement(immediate ? "BEGIN IMMEDIATE" : "BEGIN DEFERRED").execute()
        transactionMemory = nil
        do {
            let result = try body()
            try statement("COMMIT").execute()
            endTransaction(committed: true)
            return result
        } catch {
            try? statement("ROLLBACK").execute()
            endTransaction(committed: false)
            throw error
        }
    }

    /// Tells the transaction's memory, if it committed, and forgets it either way.
    func endTransaction(committed: Bool) {
        let memory = transactionMemory
        transactionMemory = nil
        if committed { memory?.committed() }
    }

    /// Runs `body` inside a savepoint: if it throws, only its own changes are undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try statement("SAVEPOINT op").execute()
        do {
            let result = try body()
            try statement("RELEASE op").execute()
            return result
        } catch {
            try? statement("ROLLBACK TO op").execute()
            try? statement("RELEASE op").execute()
            throw error
        }
    }

    // MARK: - Functions

    /// Registers the SQL functions queries use: `cumulus_distance(lat1, lon1, lat2, lon2)` in meters.
    private func registerFunctions() {
        sqlite3_create_function_v2(
            handle, "cumulus_distance", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nil,
            { context, count, arguments in
                guard let arguments, count == 4 else { return sqlite3_result_null(context) }
                for index in 0..<4 where sqlite3_value_type(arguments[index]) == SQLITE_NULL {
                    return sqlite3_result_null(context)
                }
                let from = Location(latitude: sqlite3_value_double(arguments[0]), longitude: sqlite3_value_double(arguments[1]))
                let to = Location(latitude: sqlite3_value_double(arguments[2]), longitude: sqlite3_value_double(arguments[3]))
                sqlite3_result_double(context, from.distance(to: to))
            }, nil, nil, nil)
    }
}
