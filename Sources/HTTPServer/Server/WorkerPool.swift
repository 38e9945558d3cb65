import CLinux
import Dispatch
import Foundation
import Synchronization

/// A fixed set of threads running handlers from a bounded queue.
///
/// At most `awakeLimit` workers (one per processor) are woken for new jobs; the others sleep until
/// the ones awake stop taking jobs. Why: with a worker woken per job, a request paid a wake and
/// a switch of threads, and eight workers on two processors fought over every lock a request
/// takes. Awake workers take job after job without sleeping. A worker that blocks (a handler
/// waiting on the disk or a commit) stops taking jobs; when none has taken one for
/// `stuckAfter` while jobs wait, the event loops wake another (``wakeIfStuck()``).
final class WorkerPool: Sendable {
    typealias Job = @Sendable () -> Void

    private struct Queue {
        var jobs: [Job?] = []
        var head = 0
        var stopping = false
        var count: Int { jobs.count - head }
        /// Workers running a job or about to take one.
        var awake = 0
        /// Workers asleep on `available`.
        var asleep = 0

        /// Counts one sleeper as awake, for the caller to signal `available`: `false` if none sleeps.
        mutating func wakeOne() -> Bool {
            guard asleep > 0 else { return false }
            asleep -= 1
            awake += 1
            return true
        }
    }

    /// How long jobs may wait with no worker taking one before another is woken.
    static let stuckAfter: UInt64 = 1_000_000

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)
    /// Jobs waiting, and when the queue last moved — a worker took a job, or the first of those
    /// waiting came (monotonic nanoseconds): written under the lock, read without it by the
    /// loops' check for stuck workers, which runs on every turn.
    private let waiting = Atomic<Int>(0)
    private let lastTaken = Atomic<UInt64>(0)
    private let capacity: Int
    private let threadCount: Int
    private let awakeLimit: Int
    private let finished = DispatchGroup()

    /// - Parameter awakeLimit: How many workers new jobs wake at most.
    init(threads: Int, capacity: Int, awakeLimit: Int) {
        self.threadCount = max(1, threads)
        self.capacity = max(1, capacity)
        self.awakeLimit = max(1, min(threadCount, awakeLimit))
    }

    func start() {
        queue.withLock { $0.awake = threadCount }
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
        let (accepted, wake) = queue.withLock { queue -> (Bool, Bool) in
            guard !queue.stopping, queue.count < capacity else { return (false, false) }
            queue.jobs.append(job)
            waiting.store(queue.count, ordering: .relaxed)
            // Waiting starts now, not when a worker last took a job before the queue ran dry.
            if queue.count == 1 { lastTaken.store(CLinux_monotonic_ns(), ordering: .relaxed) }
            return (true, queue.awake < awakeLimit && queue.wakeOne())
        }
        if wake { available.signal() }
        return accepted
    }

    /// Whether jobs wait for a worker: the loops then look at them again within a millisecond.
    var hasBacklog: Bool { waiting.load(ordering: .relaxed) > 0 }

    /// Wakes another worker when jobs wait and none was taken for `stuckAfter`: the awake
    /// workers are blocked. Cheap when nothing waits; called by the event loops on every turn.
    func wakeIfStuck() {
        guard waiting.load(ordering: .relaxed) > 0 else { return }
        let now = CLinux_monotonic_ns()
        guard now &- lastTaken.load(ordering: .relaxed) > Self.stuckAfter else { return }
        let wake = queue.withLock { queue -> Bool in
            guard queue.count > 0, now &- lastTaken.load(ordering: .relaxed) > Self.stuckAfter else { return false }
            // The next check waits for this worker to have had its chance.
            lastTaken.store(now, ordering: .relaxed)
            return queue.wakeOne()
        }
        if wake { available.signal() }
    }

    /// Lets queued jobs run, then stops the threads; waits up to `timeout` for them.
    func shutdown(timeout: Duration) {
        let sleepers = queue.withLock { queue -> Int in
            queue.stopping = true
            var sleepers = 0
            while queue.wakeOne() { sleepers += 1 }
            return sleepers
        }
        for _ in 0..<sleepers { available.signal() }
        _ = finished.wait(timeout: .now() + .nanoseconds(Int(min(timeout.nanoseconds, UInt64(Int.max)))))
    }

    private func work() {
        while true {
            let job = queue.withLock { queue -> Job?? in
                guard queue.count > 0 else {
                    if queue.stopping { return .some(nil) }
                    queue.awake -= 1
                    queue.asleep += 1
                    return nil
                }
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
                waiting.store(queue.count, ordering: .relaxed)
                lastTaken.store(CLinux_monotonic_ns(), ordering: .relaxed)
                return job
            }
            switch job {
            case .some(.some(let job)): job()
            case .some(.none): return
            case .none: available.wait()
            }
        }
    }
}
