import Dispatch
import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore

/// Notifications between processes on PostgreSQL: coalesced `pg_notify` after commit, one
/// listening connection per process, and a full re-read whenever notifications may have been lost.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run")) struct PostgresNotificationTests
{
    let database: TestDatabase
    init() throws { database = try TestPostgres.makeDatabase() }

    /// What a listener's handler was told, with a way to wait for a condition on it.
    final class Received: Sendable {
        let events = Mutex<[PostgresListener.Event]>([])
        let arrived = DispatchSemaphore(value: 0)

        func handle(_ event: PostgresListener.Event) {
            events.withLock { $0.append(event) }
            arrived.signal()
        }

        var items: Set<String> {
            events.withLock { events in
                events.reduce(into: Set<String>()) { all, event in if case .changed(let items) = event { all.formUnion(items) } }
            }
        }

        var rechecks: Int { events.withLock { $0.filter { $0 == .recheckAll }.count } }

        /// Waits (up to 20 s, so a stuck listener fails the test rather than hanging it) until `condition` holds.
        func wait(until condition: () -> Bool) -> Bool {
            let deadline = Date().addingTimeInterval(20)
            while !condition() {
                if Date() > deadline { return false }
                _ = arrived.wait(timeout: .now() + 0.1)
            }
            return true
        }
    }

    @Test func itemsFromOneProcessReachAnotherCoalesced() throws {
        let received = Received()
        let listener = PostgresListener(url: database.url) { received.handle($0) }
        defer { listener.stop() }
        #expect(received.wait { received.rechecks >= 1 })
        let notifier = PostgresNotifier(pool: PostgresPool(url: database.url))
        defer { notifier.stop() }
        let items = (0..<1_000).map { "z:env:\($0)" }
        for item in items { notifier.changed([item]) }
        #expect(received.wait { received.items == Set(items) })
        // The listener can hear the last payload before the notifier has counted it as sent.
        #expect(received.wait { notifier.notificationsSent >= 2 }, "nearly 10 KB of items needs more than one payload under 8,000 bytes")
        // A thousand items, told one by one, went in far fewer notifications.
        #expect(notifier.notificationsSent < 100)
    }

    @Test func payloadsStayUnderPostgresLimit() {
        let items = Set((0..<2_000).map { "t:\(String(repeating: "a", count: 40))\($0)" })
        let payloads = PostgresNotifier.payloads(items)
        #expect(payloads.allSatisfy { $0.utf8.count <= PostgresNotifier.payloadLimit })
        #expect(Set(payloads.flatMap { $0.split(separator: ",").map(String.init) }) == items)
    }

    @Test func aKilledListeningConnectionComesBackAndAsksForAFullReread() throws {
        let received = Received()
        let listener = PostgresListener(url: database.url) { received.handle($0) }
        defer { listener.stop() }
        #expect(received.wait { listener.isConnected && received.rechecks >= 1 })
        let raw = try RawPostgres(url: database.url)
        try raw.execute(
            "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(PostgresListener.applicationName)' AND datname = current_database()"
        )
        // What was sent while nobody listened is lost as a notification; the reconnect's full
        // re-read is what finds it.
        try raw.execute("SELECT pg_notify('\(PostgresNotifier.channel)', 'lost-or-not')")
        #expect(received.wait { listener.connectionCount >= 2 && received.rechecks >= 2 })
        let notifier = PostgresNotifier(pool: PostgresPool(url: database.url))
        defer { notifier.stop() }
        notifier.changed(["after"])
        #expect(received.wait { received.items.contains("after") })
    }
}
