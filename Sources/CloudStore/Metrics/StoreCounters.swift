import Synchronization

/// What a store counts as it serves, beside what its storage and its sign-in throttle count: the requests refused at
/// each limit and the notifications queued. Counted with
/// atomics only where a limit refuses or a commit queued something, never otherwise.
final class StoreCounters: Sendable {
    private let requestRate = Atomic<Int>(0)
    private let transfer = Atomic<Int>(0)
    private let storage = Atomic<Int>(0)
    private let pushTokens = Atomic<Int>(0)
    /// Notifications committed to push tokens' queues.
    let notificationsQueued = Atomic<Int>(0)

    /// Counts one request refused at `limit`.
    func refused(at limit: StoreLimit) {
        switch limit {
        case .requestRate: requestRate.wrappingAdd(1, ordering: .relaxed)
        case .transfer: transfer.wrappingAdd(1, ordering: .relaxed)
        case .storage: storage.wrappingAdd(1, ordering: .relaxed)
        case .pushTokens: pushTokens.wrappingAdd(1, ordering: .relaxed)
        case .signIn: break  // counted by the sign-in throttle itself
        }
    }

    /// Requests refused at `limit` so far.
    func refusals(at limit: StoreLimit) -> Int {
        switch limit {
        case .requestRate: requestRate.load(ordering: .relaxed)
        case .transfer: transfer.load(ordering: .relaxed)
        case .storage: storage.load(ordering: .relaxed)
        case .pushTokens: pushTokens.load(ordering: .relaxed)
        case .signIn: 0
        }
    }
}
