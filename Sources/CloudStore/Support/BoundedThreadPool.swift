import Foundation

/// A few threads of their own with a bounded queue, for slow work that must not take the
/// threads that serve requests: password hashing. Work beyond the queue's capacity is refused
/// at once rather than piled up.
///
/// `@unchecked Sendable` is sound because `queue` and `stopped` are only touched while
/// `condition` is locked, and the threads and capacity never change after `init`.
final class BoundedThreadPool: @unchecked Sendable {
    private let condition = NSCondition()
    private var queue: [@Sendable () -> Void] = []
    private var stopped = false
    private let capacity: Int

    /// Starts `threads` threads taking work from a queue holding at most `capacity` waiting jobs.
    init(name: String, threads: Int, capacity: Int) {
        self.capacity = max(0, capacity)
        for index in 0..<max(1, threads) {
            let thread = Thread { [self] in run() }
            thread.name = "\(name)-\(index)"
            thread.start()
        }
    }

    /// Queues `work`; `false`, without running it, when the queue is full.
    func submit(_ work: @escaping @Sendable () -> Void) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !stopped, queue.count < capacity else { return false }
        queue.append(work)
        condition.signal()
        return true
    }

    /// Runs `work` on the pool and waits for its result.
    /// - Throws: what `work` throws, or `full` when the queue is full.
    func run<T: Sendable>(orThrow full: @autoclosure () -> any Error, _ work: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let result = ResultBox<T>()
        guard
            submit({
                result.set(Result { try work() })
                done.signal()
            })
        else { throw full() }
        done.wait()
        return try result.get()
    }

    /// Lets the threads finish what is queued and end.
    func stop() {
        condition.lock()
        stopped = true
        condition.broadcast()
        condition.unlock()
    }

    private func run() {
        while true {
            condition.lock()
            while queue.isEmpty && !stopped { condition.wait() }
            if queue.isEmpty {
                condition.unlock()
                return
            }
            let work = queue.removeFirst()
            condition.unlock()
            work()
        }
    }
}

/// A result handed from a pool thread to the waiting caller.
///
/// `@unchecked Sendable` is sound because the value is written once before the semaphore is
/// signalled and read only after the waiter returns from `wait()`, which orders the two.
private final class ResultBox<T>: @unchecked Sendable {
    private var result: Result<T, any Error>?
    func set(_ value: Result<T, any Error>) { result = value }
    func get() throws -> T { try result!.get() }
}
