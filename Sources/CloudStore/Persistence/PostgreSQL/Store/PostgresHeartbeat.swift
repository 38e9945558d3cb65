import Dispatch
import Foundation
import Synchronization

/// This process's row in the catalog's `processes` table, beaten from a thread of its own, and
/// how many processes beat lately: each process takes that share of every environment's request
/// rate, so that N processes together admit the rate an operator set, not N times it.
///
/// Times are the database's, so hosts whose clocks disagree still agree on who is alive. The
/// count is read from memory on every request; only the beat queries the database, and a beat
/// that fails keeps the last count (the others are most likely still there).
final class PostgresHeartbeat: ProcessHeartbeat {
    /// A process whose last beat is older than this many intervals no longer counts.
    static let liveIntervals: Int64 = 3
    /// Rows of processes that stopped without deleting theirs (a crash) stay this long for
    /// operators to see, in milliseconds (a day).
    static let forgetAfter: Int64 = 24 * 60 * 60 * 1000

    /// This process's id: random per start, so that a restarted process is a new one.
    let id = SecureToken.hex(bytes: 8)
    /// Milliseconds between beats.
    let interval: Int64
    private let pool: PostgresPool
    private let live = Atomic<Int>(1)
    private let stopped = Mutex<Bool>(false)
    private let wakeup = DispatchSemaphore(value: 0)

    /// Beats once, so that the count is right from the start, then every `interval` milliseconds.
    /// - Throws: when the first beat fails.
    init(pool: PostgresPool, interval: Int64) throws {
        self.pool = pool
        self.interval = max(1, interval)
        try beat()
        let thread = Thread { [self] in run() }
        thread.name = "cumulus-pg-heartbeat"
        thread.start()
    }

    /// How many processes beat within the last ``liveIntervals`` intervals, this one included.
    var liveProcesses: Int { live.load(ordering: .relaxed) }

    /// Writes this process's beat and counts the live processes; forgets rows long dead.
    func beat() throws {
        try stopped.withLock { stopped in
            // After the row was deleted, a late beat must not bring it back.
            guard !stopped else { return }
            let others = try pool.withConnection { connection in
                try connection.execute(
                    """
                    WITH clock AS (SELECT (extract(epoch FROM now()) * 1000)::bigint AS now),
                    mine AS (
                        INSERT INTO catalog.processes(id, host, pid, started, last_beat) SELECT $1, $2, $3, now, now FROM clock
                        ON CONFLICT (id) DO UPDATE SET last_beat = excluded.last_beat),
                    gone AS (DELETE FROM catalog.processes WHERE last_beat < (SELECT now FROM clock) - $5)
                    SELECT count(*) FROM catalog.processes WHERE id <> $1 AND last_beat > (SELECT now FROM clock) - $4
                    """,
                    [
                        .text(id), .text(Self.hostName), .integer(Int64(getpid())), .integer(interval * Self.liveIntervals),
                        .integer(Self.forgetAfter),
                    ]
                ).first { $0.integer(0) } ?? 0
            }
            // The statement's snapshot does not see its own insert: this process is the 1.
            live.store(1 + Int(others), ordering: .relaxed)
        }
    }

    /// Stops beating and deletes this process's row, so that the others stop counting it at
    /// their next beat rather than after the window.
    func stop() {
        stopped.withLock { stopped in
            guard !stopped else { return }
            stopped = true
            // A row left behind (the database is away) stops counting once its beat is old.
            _ = try? pool.withConnection { try $0.execute("DELETE FROM catalog.processes WHERE id = $1", [.text(id)]) }
        }
        wakeup.signal()
    }

    private func run() {
        while wakeup.wait(timeout: .now() + .milliseconds(Int(interval))) == .timedOut {
            if stopped.withLock({ $0 }) { return }
            // A failed beat keeps the last count; the next one tries again.
            try? beat()
        }
    }

    /// The host's name as the kernel knows it: no resolver is asked.
    private static let hostName: String = {
        var buffer = [CChar](repeating: 0, count: 256)
        guard gethostname(&buffer, buffer.count - 1) == 0 else { return "" }
        return buffer.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }()
}
