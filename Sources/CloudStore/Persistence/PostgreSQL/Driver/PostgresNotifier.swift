import Dispatch
import Foundation
import Synchronization

/// Tells other processes what changed, by `pg_notify` on the store's channel, after commit.
///
/// Never inside a write transaction: `NOTIFY` there takes a cluster-wide lock held through the
/// commit, which cut commits several times at 64 writers. Writers hand their items (zone keys,
/// push tokens, "catalog") here after they commit; one thread sends what gathered in the last few
/// milliseconds as one notification, split only where a payload would pass PostgreSQL's limit.
/// A notification can still be lost (a listener reconnecting): it only wakes waiters, who read
/// the tables, which are the truth, and who also read them again on a timer.
final class PostgresNotifier: Sendable {
    /// The channel every process listens on.
    static let channel = "cumulus"
    /// The largest payload sent: PostgreSQL refuses 8,000 bytes and more.
    static let payloadLimit = 7_900
    /// How long items gather before they are sent together.
    static let coalescing: TimeInterval = 0.003

    private let pool: PostgresPool
    private let state = Mutex<(items: Set<String>, stopping: Bool)>(([], false))
    private let wakeup = DispatchSemaphore(value: 0)
    /// Notifications sent, for tests and statistics.
    private let sent = Atomic<Int>(0)

    /// Starts the sending thread on connections from `pool`.
    init(pool: PostgresPool) {
        self.pool = pool
        let thread = Thread { [self] in run() }
        thread.name = "cumulus-pg-notifier"
        thread.start()
    }

    /// Stops the sending thread once what is queued has gone.
    func stop() {
        state.withLock { $0.stopping = true }
        wakeup.signal()
    }

    /// Notifications sent so far.
    var notificationsSent: Int { sent.load(ordering: .relaxed) }

    /// Queues items to tell other processes. Items must not contain commas.
    func changed<S: Sequence<String>>(_ items: S) {
        let wasEmpty = state.withLock { state in
            let wasEmpty = state.items.isEmpty
            state.items.formUnion(items)
            return wasEmpty
        }
        if wasEmpty { wakeup.signal() }
    }

    private func run() {
        while true {
            wakeup.wait()
            Thread.sleep(forTimeInterval: Self.coalescing)
            let (items, stopping) = state.withLock { state in
                defer { state.items = [] }
                return (state.items, state.stopping)
            }
            if !items.isEmpty { send(items) }
            if stopping { return }
        }
    }

    private func send(_ items: Set<String>) {
        for payload in Self.payloads(items) {
            do {
                try pool.withConnection { connection in
                    _ = try connection.execute("SELECT pg_notify($1, $2)", [.text(Self.channel), .text(payload)])
                }
                sent.add(1, ordering: .relaxed)
            } catch {
                // Lost: listeners read the tables again on their timer, so nothing waits forever.
            }
        }
    }

    /// Items joined by commas into payloads under the limit.
    static func payloads(_ items: Set<String>) -> [String] {
        var payloads: [String] = []
        var current = ""
        for item in items.sorted() where item.utf8.count < payloadLimit {
            if !current.isEmpty && current.utf8.count + 1 + item.utf8.count > payloadLimit {
                payloads.append(current)
                current = ""
            }
            current += current.isEmpty ? item : "," + item
        }
        if !current.isEmpty { payloads.append(current) }
        return payloads
    }
}
