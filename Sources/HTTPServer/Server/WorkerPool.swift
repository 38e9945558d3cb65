import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads running handlers from a bounded queue.
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct Queue {
        var jobs: [Job?] = []
        var head = 0
        var stopping = false
        var count: Int { jobs.count - head }
    }

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    private let capacity: Int
    private let threadCount: Int
    private let finished = DispatchGroup()

    init(threads: Int, capacity: Int) {
        self.threadCount = max(1, threads)
        self.capacity = max(1, capacity)
    }

    func start() {
        for index in 0..<threadCount {
            finished.enter()
            let thread = Thread { [self] in
                self.work()
                self.finished.leave()
            }
            thread.name = "cumulus-worker-\(index)"
            thread.start()
        }
    }

    /// Queues a job; `false` if the queue is full or the pool is stopping.
    func submit(_ job: @escaping Job) -> Bool {
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.stopping, queue.count < capacity else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
    }

    /// Lets queued jobs run, then stops the threads; waits up to `timeout` for them.
    func shutdown(timeout: Duration) {
        queue.withLock { $0.stopping = true }
        for _ in 0..<threadCount { available.signal() }
        _ = finished.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max)))))
    }

    private func work() {
        while true {
            available.wait()
            let job = queue.withLock { queue -> Job?? in
                guard queue.count > 0 else { return queue.stopping ? .some(nil) : nil }
                let job = queue.jobs[queue.head]
                queue.jobs[queue.head] = nil
                queue.head += 1
                if queue.head > 1024 && queue.head * 2 > queue.jobs.count {
                    queue.jobs.removeFirst(queue.head)
                    queue.head = 0
                } else if queue.head == queue.jobs.count {
                    queue.jobs.removeAll(keepingCapacity: true)
                    queue.head = 0
                }
                return job
            }
            switch job {
            case .some(.some(let job)): job()
            case .some(.none): return
            case .none: continue
            }
        }
    }
}
