import Dispatch

/// A read transaction the writer keeps open on a connection of its own while it has nothing to
/// write, so that the process always holds the lock on the newest WAL read mark.
///
/// Why: a reader takes a shared lock on the read mark it uses as its transaction begins and
/// drops it as it ends. SQLite asks the kernel (`fcntl`) only when no other connection of the
/// process holds that lock already, so with few readers at once nearly every read made two
/// system calls for it, the most frequent calls of a read. While this transaction holds the
/// newest mark, readers take and drop it within the process.
///
/// It lets go before every group of writes, and takes the newest mark again once the writer
/// has had nothing to do for ``idleDelay``: a reader at all times would keep the log from
/// starting again at its beginning, which a writer does only when no reader holds a mark; and
/// a transaction begun before a commit holds a mark older than the readers after it want.
/// While writes keep coming, readers take the lock themselves, as they would without it.
/// Used by the writer's thread alone.
final class SQLiteReadMarkPin {
    /// How long the writer waits for more work before it takes the pin again.
    static let idleDelay = DispatchTimeInterval.milliseconds(1)

    private let path: String
    private let synchronous: SynchronousMode
    private var connection: SQLiteConnection?
    /// Whether the read transaction is open.
    private(set) var isHolding = false

    init(path: String, synchronous: SynchronousMode) {
        self.path = path
        self.synchronous = synchronous
    }

    /// Begins a read transaction on the newest snapshot. A failure is not an error: the pin
    /// only saves readers system calls, and without it they take the lock themselves.
    func hold() {
        guard !isHolding else { return }
        do {
            if connection == nil { connection = try SQLiteConnection(path: path, synchronous: synchronous) }
            guard let connection else { return }
            try connection.statement("BEGIN DEFERRED").execute()
            isHolding = true
            // A deferred transaction takes its snapshot, and the mark's lock, at its first read.
            try connection.statement("PRAGMA schema_version").execute()
        } catch {
            release()
        }
    }

    /// Ends the read transaction, if one is open.
    func release() {
        guard isHolding, let connection else { return }
        isHolding = false
        do {
            try connection.statement("COMMIT").execute()
        } catch {
            // A connection whose transaction would not end is dropped with it.
            self.connection = nil
        }
    }
}
