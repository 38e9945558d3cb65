import Foundation
import Synchronization

/// The one writer of a database file: a thread that owns the writer connection and runs the
/// write jobs callers submit, committing all the jobs that are waiting in one transaction
/// (group commit). A job that fails undoes only itself; every caller gets its answer after the
/// commit that made its changes durable. What the jobs of a group share
/// (``SQLiteWriteGroupState``) is finished once, before the group commits.
///
/// A group of jobs that may run again (``enqueue(exclusive:_:completion:)``'s) first runs
/// without savepoints: a savepoint makes SQLite copy every page a job touches that an earlier
/// job of the group touched, which cost about as much as a create's own index updates. If one
/// of them fails, the whole transaction is rolled back and the group runs again with a
/// savepoint per job, as any other group does; the next groups then take savepoints from the
/// start for a while, so that a caller whose writes keep failing does not make every group run
/// twice.
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

    /// - Parameter pin: the read transaction the writer holds while idle (see ``SQLiteReadMarkPin``).
    init(connection: SQLiteConnection, name: String, pin: SQLiteReadMarkPin? = nil) {
        core = Core(connection: connection, answers: SQLiteAnswerThread(name: "cumulus-answers \(name)"), pin: pin)
        let core = core
        let thread = Thread { core.run() }
        thread.name = "cumulus-writer \(name)"
        thread.start()
    }

    deinit { core.stop() }

    /// Runs `body` on the writer connection inside the group's transaction and returns what it
    /// returned once the transaction has committed.
    /// - Throws: what `body` threw (its savepoint is rolled back), or the commit's failure; SQLite's
    ///   errors as ``CloudStoreError``.
    func submit<T: Sendable>(exclusive: Bool = false, _ body: (SQLiteConnection) throws -> T) throws -> T {
        try Job.submit(exclusive: exclusive, body, mapError: Self.mapError) { core.enqueue($0) }
    }

    /// Hands `body` to the writer and returns at once; `completion` gets what `body` returned,
    /// or what it or the commit threw, once the group's transaction has ended. Nothing waits
    /// meanwhile, so the jobs of every caller in flight can share one commit.
    ///
    /// `body` may run more than once, each time in a transaction rolled back before the next:
    /// it must act only through the connection, and keep nothing from one run to the next.
    ///
    /// `completion` runs on the writer's thread before it starts the next group, or on another
    /// thread when more jobs are already waiting: it should only hand the answer on.
    func enqueue<T: Sendable>(
        exclusive: Bool = false, _ body: @escaping @Sendable (SQLiteConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        core.enqueue(Job.repeatable(exclusive: exclusive, body, mapError: Self.mapError, completion: completion))
    }

    /// How the writer has grouped the jobs it committed so far, and how many wait now.
    var statistics: WriteStatistics { core.statistics }

    /// A submitted job: the caller's closure and who to tell the outcome.
    typealias Job = WriteJob<SQLiteConnection>

    /// SQLite's errors as CloudStore's, for the callers.
    private static let mapError: @Sendable (any Error) -> any Error = { ($0 as? SQLiteError)?.cloudStoreError ?? $0 }

    /// What the writer thread and submitters share.
    final class Core: Sendable {
        /// Used by the writer thread alone after `init`.
        private let connection: SQLiteConnection
        private let pending = Mutex(State())
        private struct State {
            var jobs: [Job] = []
            var stopping = false
            /// Counted as groups are taken, under the lock already held for that.
            var counts = WriteStatistics()
        }
        private let wakeup = DispatchSemaphore(value: 0)
        /// Where a group's outcomes are told while more jobs wait.
        private let answers: SQLiteAnswerThread
        /// How many more groups take a savepoint per job from the start, after a group run
        /// without them had to run again. Used by the writer thread alone.
        private nonisolated(unsafe) var groupsWithSavepoints = 0
        /// Held while the writer is idle, let go while it writes. Used by the writer thread alone.
        private nonisolated(unsafe) let pin: SQLiteReadMarkPin?
        /// Groups that take savepoints from the start after one ran twice.
        static let groupsWithSavepointsAfterRetry = 64

        init(connection: SQLiteConnection, answers: SQLiteAnswerThread, pin: SQLiteReadMarkPin?) {
            self.connection = connection
            self.answers = answers
            self.pin = pin
        }

        func enqueue(_ job: Job) {
            pending.withLock { $0.jobs.append(job) }
            wakeup.signal()
        }

        var statistics: WriteStatistics {
            pending.withLock { state in
                var statistics = state.counts
                statistics.waiting = state.jobs.count
                return statistics
            }
        }

        func stop() {
            pending.withLock { $0.stopping = true }
            wakeup.signal()
        }

        /// The writer thread's loop: wait for jobs, run whatever is waiting as one group.
        func run() {
            while true {
                if let pin, !pin.isHolding {
                    // The pin is taken only once writes pause, at the start as after a group:
                    // taking and dropping it costs the writer a transaction's locks, which a
                    // steady stream of writes would pay for every group, and a process that
                    // writes once and ends (the CLI) would pay for nothing.
                    if wakeup.wait(timeout: .now() + SQLiteReadMarkPin.idleDelay) == .timedOut {
                        pin.hold()
                        wakeup.wait()
                    }
                } else {
                    wakeup.wait()
                }
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
                    if count > 0 {
                        state.counts.transactions += 1
                        state.counts.jobs += count
                        state.counts.largestGroup = max(state.counts.largestGroup, count)
                    }
                    return (taken, state.stopping)
                }
                // Each job signalled once: jobs beyond this group are picked up by later wakes,
                // and wakes whose jobs an earlier group took find nothing.
                // A job alone needs no savepoint: its own transaction undoes it if it fails, and
                // a savepoint would copy every page it touches to the sub-journal first.
                if !jobs.isEmpty { pin?.release() }
                if let job = jobs.first, job.exclusive || jobs.count == 1 {
                    commitAlone(job)
                } else if !jobs.isEmpty {
                    commit(jobs)
                }
                if stopping && pending.withLock({ $0.jobs.isEmpty }) {
                    pin?.release()
                    answers.stop()
                    return
                }
            }
        }

        private func commit(_ jobs: [Job]) {
            if groupsWithSavepoints > 0 {
                groupsWithSavepoints -= 1
            } else if jobs.allSatisfy(\.repeatable) {
                if commitWithoutSavepoints(jobs) { return }
                groupsWithSavepoints = Self.groupsWithSavepointsAfterRetry
                pending.withLock { $0.counts.groupsRunTwice += 1 }
            }
            commitWithSavepoints(jobs)
        }

        /// Runs a group's jobs one after another in one transaction and commits it, as long as
        /// none fails. `false` when one did: then nothing of the group remains, nobody was told
        /// anything, and the group is to run again with savepoints.
        private func commitWithoutSavepoints(_ jobs: [Job]) -> Bool {
            guard begin(jobs) else { return true }
            defer { endGroup() }
            var results: [Result<any Sendable, any Error>] = []
            results.reserveCapacity(jobs.count)
            do {
                for job in jobs { results.append(.success(try job.perform(on: connection))) }
            } catch {
                try? connection.statement("ROLLBACK").execute()
                connection.endTransaction(committed: false)
                return false
            }
            commit(jobs, results)
            return true
        }

        /// Runs a group's jobs in one transaction, each in a savepoint of its own, so that a job
        /// that fails undoes only itself.
        private func commitWithSavepoints(_ jobs: [Job]) {
            guard begin(jobs) else { return }
            defer { endGroup() }
            var results: [Result<any Sendable, any Error>] = []
            results.reserveCapacity(jobs.count)
            for job in jobs {
                // What the group shares before the job: a job that fails is taken back to it. The
                // first job to need them makes the group's state and its memory, so a failing
                // job may have made them; what it made must not commit with the group.
                let state = connection.writeGroupState
                let memory = connection.transactionMemory
                state?.beginJob()
                do {
                    try connection.statement("SAVEPOINT job").execute()
                    let value = try job.perform(on: connection)
                    try connection.statement("RELEASE job").execute()
                    results.append(.success(value))
                } catch {
                    try? connection.statement("ROLLBACK TO job").execute()
                    try? connection.statement("RELEASE job").execute()
                    state?.undoJob()
                    connection.writeGroupState = state
                    connection.transactionMemory = memory
                    results.append(.failure(error))
                }
            }
            commit(jobs, results)
        }

        /// Opens a group's transaction; `false`, with every job told the failure, if it could
        /// not.
        private func begin(_ jobs: [Job]) -> Bool {
            do {
                try connection.statement("BEGIN IMMEDIATE").execute()
            } catch {
                finish(jobs, with: Array(repeating: .failure(error), count: jobs.count))
                return false
            }
            connection.inWriteGroup = true
            connection.transactionMemory = nil
            return true
        }

        /// Writes what the group's jobs share and commits, then tells each job its outcome:
        /// every job the commit's failure, if it failed.
        private func commit(_ jobs: [Job], _ results: [Result<any Sendable, any Error>]) {
            var results = results
            do {
                try connection.writeGroupState?.finish()
                try connection.statement("COMMIT").execute()
                connection.endTransaction(committed: true)
            } catch {
                try? connection.statement("ROLLBACK").execute()
                connection.endTransaction(committed: false)
                results = Array(repeating: .failure(error), count: jobs.count)
            }
            finish(jobs, with: results)
        }

        /// Leaves the group: the connection's next transaction starts with no shared state.
        private func endGroup() {
            connection.inWriteGroup = false
            connection.writeGroupState = nil
        }

        private func commitAlone(_ job: Job) {
            let result: Result<any Sendable, any Error>
            do {
                result = .success(try connection.transaction { try job.perform(on: connection) })
            } catch {
                result = .failure(error)
            }
            finish([job], with: [result])
        }

        /// Tells each job of a group its outcome. When more jobs wait already, the answers are
        /// made on the answer thread, in one hop for the whole group: under load the writer's
        /// thread is what bounds creates per second, and answering a create costs it a tenth of
        /// the create. With none waiting the writer would only go to sleep, so it answers
        /// itself and saves the hop.
        private func finish(_ jobs: [Job], with results: [Result<any Sendable, any Error>]) {
            if pending.withLock({ !$0.jobs.isEmpty }) {
                answers.run { Self.report(jobs, results) }
            } else {
                Self.report(jobs, results)
            }
        }

        private static func report(_ jobs: [Job], _ results: [Result<any Sendable, any Error>]) {
            for (job, result) in zip(jobs, results) { job.finish(result) }
        }
    }
}
