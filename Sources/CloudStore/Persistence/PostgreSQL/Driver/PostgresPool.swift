import Synchronization

/// Connections to one PostgreSQL database, opened on demand and kept while idle.
///
/// A connection left in a transaction or broken by a failure is closed rather than kept, so the
/// next caller always gets one that is idle and well.
final class PostgresPool: Sendable {
    private let url: String
    private let idle = Mutex<[PostgresConnection]>([])
    private let maximumIdle: Int
    /// Connections open, idle or in use, for metrics.
    private let open = Atomic<Int>(0)
    /// Connections handed out and not yet back, for metrics.
    private let inUse = Atomic<Int>(0)
    /// Round trips made by connections handed back, for metrics.
    private let roundTrips = Atomic<Int>(0)

    /// A pool for the database `url` names, keeping at most `maximumIdle` idle connections.
    init(url: String, maximumIdle: Int = 16) {
        self.url = url
        self.maximumIdle = maximumIdle
    }

    /// Runs `body` with a connection of its own.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection: PostgresConnection
        if let kept = idle.withLock({ $0.popLast() }) {
            connection = kept
        } else {
            connection = try PostgresConnection(url: url)
            open.wrappingAdd(1, ordering: .relaxed)
        }
        inUse.wrappingAdd(1, ordering: .relaxed)
        let roundTripsBefore = connection.roundTrips
        defer {
            roundTrips.wrappingAdd(connection.roundTrips - roundTripsBefore, ordering: .relaxed)
            inUse.wrappingSubtract(1, ordering: .relaxed)
            let kept =
                !connection.isBroken && !connection.inTransaction
                && idle.withLock { connections in
                    guard connections.count < maximumIdle else { return false }
                    connections.append(connection)
                    return true
                }
            if !kept { open.wrappingSubtract(1, ordering: .relaxed) }
        }
        return try body(connection)
    }

    /// The pool's connections and the round trips they made, for metrics.
    var statistics: StorageStatistics.Pool {
        StorageStatistics.Pool(
            connections: open.load(ordering: .relaxed), inUse: inUse.load(ordering: .relaxed),
            roundTrips: roundTrips.load(ordering: .relaxed))
    }
}
