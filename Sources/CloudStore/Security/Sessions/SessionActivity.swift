import Synchronization

/// When each session was last used, kept in memory so that a request costs no write, and
/// written to the catalog at most once a minute per session so that a restart keeps it roughly.
final class SessionActivity: Sendable {
    private struct Entry {
        var lastSeen: Int64
        var persisted: Int64
    }

    private let entries = Mutex<[String: Entry]>([:])
    /// How stale the stored time may get before it is written again, in milliseconds.
    static let persistInterval: Int64 = 60_000
    /// Past this many sessions, the oldest are forgotten (the stored time stays).
    private static let capacity = 100_000

    /// The latest use known of a session, given the time the catalog holds.
    func lastSeen(_ id: String, stored: Int64) -> Int64 {
        entries.withLock { max($0[id]?.lastSeen ?? stored, stored) }
    }

    /// Records a use; returns whether the catalog should now be told.
    func touch(_ id: String, at now: Int64, stored: Int64) -> Bool {
        entries.withLock { entries in
            if entries.count >= Self.capacity, entries[id] == nil {
                let cutoff = now - Self.persistInterval
                entries = entries.filter { $0.value.lastSeen > cutoff }
            }
            var entry = entries[id] ?? Entry(lastSeen: stored, persisted: stored)
            entry.lastSeen = max(entry.lastSeen, now)
            let persist = entry.lastSeen - entry.persisted >= Self.persistInterval
            if persist { entry.persisted = entry.lastSeen }
            entries[id] = entry
            return persist
        }
    }

    /// Forgets a session.
    func forget(_ id: String) {
        _ = entries.withLock { $0.removeValue(forKey: id) }
    }
}
