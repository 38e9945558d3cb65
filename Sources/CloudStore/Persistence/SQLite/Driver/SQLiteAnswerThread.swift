import Foundation
import Synchronization

/// A thread of the writer's own that tells the callers of a write group their outcomes, in
/// order, while the writer goes on to the next group. A thread rather than a dispatch queue:
/// callers that wait for their outcome may hold every thread of the process's shared pool,
/// and the answers they wait for must never queue behind them. Started when first needed: a
/// writer that never has jobs waiting (most environments) never starts it.
final class SQLiteAnswerThread: Sendable {
    private let name: String
    private let pending = Mutex(State())
    private struct State {
        var work: [@Sendable () -> Void] = []
        var started = false
        var stopping = false
    }
    private let wakeup = DispatchSemaphore(value: 0)

    init(name: String) { self.name = name }

    /// Runs `work` on the thread, after everything handed over before it.
    func run(_ work: @escaping @Sendable () -> Void) {
        let start = pending.withLock { state in
            state.work.append(work)
            defer { state.started = true }
            return !state.started
        }
        if start {
            let thread = Thread { [self] in serve() }
            thread.name = name
            thread.start()
        }
        wakeup.signal()
    }

    /// Ends the thread once everything handed over has run.
    func stop() {
        pending.withLock { $0.stopping = true }
        wakeup.signal()
    }

    /// The thread's loop: runs what was handed over, until stopped and drained.
    private func serve() {
        while true {
            wakeup.wait()
            let (work, stopping) = pending.withLock { state in
                defer { state.work.removeAll(keepingCapacity: true) }
                return (state.work, state.stopping)
            }
            for item in work { item() }
            if stopping && pending.withLock({ $0.work.isEmpty }) { return }
        }
    }
}
