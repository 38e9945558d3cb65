import Foundation
import Synchronization

/// Receives other processes' notifications (``PostgresNotifier``) on one dedicated connection.
///
/// The connection must reach PostgreSQL directly, never through a transaction pooler, and is
/// never in a transaction: a listener sees notifications only between its transactions. A lost
/// connection loses the notifications sent meanwhile, so after reconnecting the listener asks
/// its handler to read everything again, and it asks every ``recheckInterval`` anyway.
final class PostgresListener: Sendable {
    /// What the handler is told.
    enum Event: Sendable, Equatable {
        /// Items other processes (or this one) said changed.
        case changed(Set<String>)
        /// Notifications may have been missed: read every table waited on again.
        case recheckAll
    }

    /// How often waiters are told to read again, notifications or not.
    static let recheckInterval: TimeInterval = 10
    /// The application name the connection shows in `pg_stat_activity`.
    static let applicationName = "cumulus-listener"

    private let url: String
    private let handler: @Sendable (Event) -> Void
    private let stopping = Atomic<Bool>(false)
    private let connected = Atomic<Bool>(false)
    /// Times the connection was (re)made, for `/readyz` and tests.
    private let connections = Atomic<Int>(0)

    /// Starts listening on the database `url` names; `handler` runs on the listener's thread.
    init(url: String, handler: @escaping @Sendable (Event) -> Void) {
        self.url = url
        self.handler = handler
        let thread = Thread { [self] in run() }
        thread.name = "cumulus-pg-listener"
        thread.start()
    }

    /// Stops listening within a second.
    func stop() { stopping.store(true, ordering: .relaxed) }

    /// Whether the listening connection is up.
    var isConnected: Bool { connected.load(ordering: .relaxed) }

    /// How many times the listener has connected.
    var connectionCount: Int { connections.load(ordering: .relaxed) }

    private func run() {
        var backoff: TimeInterval = 0.05
        while !stopping.load(ordering: .relaxed) {
            do {
                let connection = try PostgresConnection(url: url, applicationName: Self.applicationName)
                try connection.executeScript("LISTEN \(PostgresNotifier.channel)")
                connected.store(true, ordering: .relaxed)
                connections.add(1, ordering: .relaxed)
                backoff = 0.05
                // Whatever was sent while no connection listened is unknown.
                handler(.recheckAll)
                try listen(on: connection)
            } catch {
                connected.store(false, ordering: .relaxed)
                Thread.sleep(forTimeInterval: backoff)
                backoff = min(backoff * 2, 1)
            }
        }
        connected.store(false, ordering: .relaxed)
    }

    /// Waits for notifications until the connection fails or the listener stops.
    private func listen(on connection: PostgresConnection) throws {
        var lastRecheck = Date()
        while !stopping.load(ordering: .relaxed) {
            var descriptor = pollfd(fd: connection.socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 1_000)
            if ready < 0 && errno != EINTR { throw PostgresError(sqlState: "", message: "poll failed: errno \(errno)") }
            if ready > 0, descriptor.revents & Int16(POLLHUP | POLLERR) != 0, descriptor.revents & Int16(POLLIN) == 0 {
                throw PostgresError(sqlState: "08006", message: "The listening connection was closed")
            }
            // Read after a timeout too: notifications that came with a command's answer wait in
            // libpq's buffer, where the socket no longer says they are there.
            let notifications = try connection.takeNotifications()
            if connection.isBroken { throw PostgresError(sqlState: "08006", message: "The listening connection was closed") }
            let items = Set(notifications.flatMap { $0.payload.split(separator: ",").map(String.init) })
            if !items.isEmpty { handler(.changed(items)) }
            if Date().timeIntervalSince(lastRecheck) >= Self.recheckInterval {
                lastRecheck = Date()
                handler(.recheckAll)
            }
        }
    }
}
