import Foundation
import Synchronization

/// The one writer of a database file: a thread that owns the writer connection and runs the
/// write jobs callers submit, committing all the jobs that are waiting in one transaction
/// (group commit). Each job runs in its own savepoint, so a job that fails undoes only itself;
/// every caller gets its answer after the commit that made its changes durable.
///
/// An exclusive job runs alone in a transaction of its own and a failure rolls all of it back;
/// so does any job that finds no other waiting.
/// Schema changes are exclusive: SQLite (3.40) cannot commit a transaction after rolling back a
/// savepoint that created and filled an FTS5 table, and one job must never spoil its group.
///
/// Why a thread and a queue rather than a lock around the connection: waiting writers sleep
/// instead of spinning for the lock while the writer works, and one commit (its WAL write and
/// locking) serves every request that arrived meanwhile.
final class SQLiteWriteQueue: Sendable {
    private let core: Core
    /// The most jobs one transaction takes, so that a long queue still commits regularly.
    static let maximumGroup = 128

    init(connection: SQLiteConnection, name: String) {
        core = Core(connection: connection)
        let core = core
        let thread = Thread { core.run() }
        thread.name = "cumulus-writer \(name)"
        thread.start()
    }

    deinit { core.stop() }

    /// Runs `body` on the writer connection inside the group's transaction and returns what it
    /// returned once the transaction has committed.
    /// - Throws: what `body` threw (its savepoint is rolled back), or the commit's failure.
    func submit<T: Sendable>(exclusive: Bool = false, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try withoutActuallyEscaping(body) { body in
            let job = Job(run: CallerClosure { connection in try body(connection) }, exclusive: exclusive)
            core.enqueue(job)
            job.done.wait()
            return try job.result.withLock { $0! }.get() as! T
        }
    }

    /// A submitted job and, once the group commits, its result.
    final class Job: Sendable {
        /// Taken (and so released) by the writer before it signals: `withoutActuallyEscaping`
        /// checks that nothing holds the caller's closure once `submit` returns.
        let run: Mutex<CallerClosure?>
        let result = Mutex<Result<any Sendable, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        /// Whether the job runs alone in its own transaction.
        let exclusive: Bool

        init(run: CallerClosure, exclusive: Bool) {
            self.run = Mutex(run)
            self.exclusive = exclusive
        }

        /// Runs the caller's closure once, dropping it afterwards.
        func perform(on connection: SQLiteConnection) throws -> any Sendable {
            guard let closure = run.withLock({ $0.take() }) else {
                throw CloudStoreError.internalError("A write job ran twice")
            }
            return try closure.body(connection)
        }
    }

    /// A caller's closure, carried to the writer thread.
    ///
    /// `@unchecked Sendable` is sound because the caller blocks on its job's semaphore from the
    /// moment it submits until the writer has finished running the closure and signalled: the
    /// closure's captured state is used by one thread at a time, and the semaphore orders the
    /// two threads' accesses. The closure never outlives `submit` (`withoutActuallyEscaping`).
    struct CallerClosure: @unchecked Sendable {
        let body: (SQLiteConnection) throws -> any Sendable
    }

    /// What the writer thread and submitters share.
    final class Core: Sendable {
        /// Used by the writer thread alone after `init`.
        private let connection: SQLiteConnection
        private let pending = Mutex<(jobs: [Job], stopping: Bool)>(([], false))
        private let wakeup = DispatchSemaphore(value: 0)

        init(connection: SQLiteConnection) { self.connection = connection }

        func enqueue(_ job: Job) {
            pending.withLock { $0.jobs.append(job) }
            wakeup.signal()
        }

        func stop() {
            pending.withLock { $0.stopping = true }
            wakeup.signal()
        }

        /// The writer thread's loop: wait for jobs, run whatever is waiting as one group.
        func run() {
            while true {
                wakeup.wait()
                let (jobs, stopping) = pending.withLock { state -> ([Job], Bool) in
                    // An exclusive job goes alone; a group stops before the next exclusive job.
                    var count = 0
                    if state.jobs.first?.exclusive == true {
                        count = 1
                    } else {
                        while count < min(state.jobs.count, SQLiteWriteQueue.maximumGroup), !state.jobs[count].exclusive { count += 1 }
                    }
                    let taken = Array(state.jobs.prefix(count))
                    state.jobs.removeFirst(count)
                    return (taken, state.stopping)
                }
                // Each job signalled once: jobs beyond this group are picked up by later wakes,
                // and wakes whose jobs an earlier group took find nothing.
                // A job alone needs no savepoint: its own transaction undoes it if it fails, and
                // a savepoint would copy every page it touches to the sub-journal first.
                if let job = jobs.first, job.exclusive || jobs.count == 1 {
                    commitAlone(job)
                } else if !jobs.isEmpty {
                    commit(jobs)
                }
                if stopping && pending.withLock({ $0.jobs.isEmpty }) { return }
            }
        }

        private func commit(_ jobs: [Job]) {
            var results: [Result<any Sendable, any Error>] = []
            do {
                try connection.statement("BEGIN IMMEDIATE").execute()
            } catch {
                for job in jobs { job.run.withLock { $0 = nil } }
                finish(jobs, with: Array(repeating: .failure(error), count: jobs.count))
                return
            }
            for job in jobs {
                do {
                    try connection.statement("SAVEPOINT job").execute()
                    let value = try job.perform(on: connection)
                    try connection.statement("RELEASE job").execute()
                    results.append(.success(value))
                } catch {
                    try? connection.statement("ROLLBACK TO job").execute()
                    try? connection.statement("RELEASE job").execute()
                    results.append(.failure(error))
                }
            }
            do {
                try connection.statement("COMMIT").execute()
            } catch {
                try? connection.statement("ROLLBACK").execute()
                results = Array(repeating: .failure(error), count: jobs.count)
            }
            finish(jobs, with: results)
        }

        private func commitAlone(_ job: Job) {
            let result: Result<any Sendable, any Error>
            do {
                result = .success(try connection.transaction { try job.perform(on: connection) })
            } catch {
                job.run.withLock { $0 = nil }
                result = .failure(error)
            }
            finish([job], with: [result])
        }

        private func finish(_ jobs: [Job], with results: [Result<any Sendable, any Error>]) {
            for (job, result) in zip(jobs, results) {
                job.result.withLock { $0 = result }
                job.done.signal()
            }
        }
    }
}
