import Synchronization

/// Connections to one PostgreSQL database, opened on demand and kept while idle.
///
/// A connection left in a transaction or broken by a failure is closed rather than kept, so the
/// next caller always gets one that is idle and well.
final class PostgresPool: Sendable {
    private let url: String
    private let idle = Mutex<[PostgresConnection]>([])
    private let maximumIdle: Int

    /// A pool for the database `url` names, keeping at most `maximumIdle` idle connections.
    init(url: String, maximumIdle: Int = 16) {
        self.url = url
        self.maximumIdle = maximumIdle
    }

    /// Runs `body` with a connection of its own.
    func withConnection<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try idle.withLock { $0.popLast() } ?? PostgresConnection(url: url)
        defer {
            if !connection.isBroken && !connection.inTransaction {
                idle.withLock { connections in
                    if connections.count < maximumIdle { connections.append(connection) }
                }
            }
        }
        return try body(connection)
    }
}
