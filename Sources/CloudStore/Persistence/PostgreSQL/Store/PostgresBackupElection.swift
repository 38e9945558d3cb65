import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The scheduled backups' election among the processes on one database: a session-level
/// advisory lock, held on a connection of its own by the process that takes them. PostgreSQL
/// lets it go when that session ends — the process stopped or died, or its connection broke —
/// and the first other process to try at its next scheduled time takes it over.
///
/// The connection is made at the first scheduled time, so that a server without a schedule
/// holds none; it is named for the process (`cumulus-backups <pid>`), so that an operator sees
/// in `pg_stat_activity` and `pg_locks` which process takes the backups.
final class PostgresBackupElection: BackupElection {
    /// The lock's key, one for the whole database (the migrations' is one less).
    static let lockKey: Int64 = 0x6375_6D75_6C75_7302

    private struct State {
        var connection: PostgresConnection?
        var held = false
    }

    private let url: String
    private let state = Mutex(State())

    init(url: String) { self.url = url }

    func holdsScheduledBackups() -> Bool {
        state.withLock { state in
            // Twice at most: a connection that broke since the last time is made again at once.
            for _ in 0..<2 {
                do {
                    return try hold(&state)
                } catch {
                    state = State()
                }
            }
            return false
        }
    }

    /// Whether this session holds the lock: still (its session answers), or taken now.
    private func hold(_ state: inout State) throws -> Bool {
        let connection = try state.connection ?? PostgresConnection(url: url, applicationName: "cumulus-backups \(getpid())")
        state.connection = connection
        if state.held {
            // A session that answers still holds its lock; asked again, the lock would stack.
            try connection.execute("SELECT 1")
            return true
        }
        state.held = try connection.execute("SELECT pg_try_advisory_lock($1)", [.integer(Self.lockKey)]).first { $0.bool(0) } ?? false
        return state.held
    }
}
