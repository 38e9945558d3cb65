import Synchronization

/// What keeps processes sharing one PostgreSQL database in step: a notifier that tells the
/// others, after each commit, what changed (catalog rows, an environment's schema, queued
/// notifications of push tokens), and a listener that hears them and drops what this process
/// cached, or wakes what waits here. Notifications can be lost; the listener then asks for a
/// full re-read, and the caches trust themselves for a second at most anyway.
final class PostgresCrossProcess: Sendable {
    /// The items of a notification.
    enum Item {
        static let catalog = "c"
        static func schema(_ name: String) -> String { "s:" + name }
        static func token(_ token: String) -> String { "t:" + token }
    }

    let notifier: PostgresNotifier
    private let listener = Mutex<PostgresListener?>(nil)

    /// Starts telling and listening on `url`'s database; `heard` runs on the listener's thread.
    init(url: String, pool: PostgresPool, heard: @escaping @Sendable (PostgresListener.Event) -> Void) {
        notifier = PostgresNotifier(pool: pool)
        listener.withLock { $0 = PostgresListener(url: url, handler: heard) }
    }

    /// Whether the listening connection is up, for readiness checks.
    var isListening: Bool { listener.withLock { $0?.isConnected ?? false } }

    /// Stops both threads.
    func stop() {
        notifier.stop()
        listener.withLock { $0?.stop() }
    }

    deinit { stop() }
}
