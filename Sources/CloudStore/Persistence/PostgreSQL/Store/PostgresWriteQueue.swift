import Dispatch
import Foundation
import Synchronization

/// The writer of one environment in this process, on PostgreSQL: jobs queue, and one thread runs
/// those that queued while the last transaction committed as one transaction — a savepoint per
/// job, so one job's failure undoes only its own work — whose last statements number the changes
/// and commit in one round trip (``PostgresChangeLog``).
///
/// Group commit is what lets a hot zone take more than one commit's latency allows: every
/// transaction on a zone waits for the one before it to release the zone's counter row. Other
/// processes have writers of their own; the counter rows order them.
final class PostgresWriteQueue: Sendable {
    private let core: Core

    /// How the writer has grouped its jobs so far.
    var statistics: WriteStatistics { core.statistics.withLock { $0 } }

    /// Starts the writer thread for the database `pool` reaches.
    /// - Parameter committed: told of each transaction that committed, on the writer's thread
    ///   after its jobs' completions: to tell waiters and other processes.
    /// - Parameter makeGroupState: what the store keeps for a transaction's jobs, made as it begins.
    init(
        pool: PostgresPool, changeLog: PostgresChangeLog, name: String,
        makeGroupState: @escaping @Sendable (PostgresWriteTransaction) throws -> (any PostgresWriteGroupState)? = { _ in nil },
        committed: @escaping @Sendable (PostgresWriteTransaction) -> Void = { _ in }
    ) {
        core = Core(pool: pool, changeLog: changeLog, makeGroupState: makeGroupState, committed: committed)
        let core = self.core
        let thread = Thread { core.run() }
        thread.name = "cumulus-pg-writer"
        thread.start()
    }

    deinit { core.stop() }

    /// Runs `body` in a write transaction, with other queued jobs, and returns once it has committed.
    /// - Parameter exclusive: run alone in a transaction of its own (schema changes).
    func submit<T: Sendable>(exclusive: Bool = false, _ body: (PostgresWriteTransaction) throws -> T) throws -> T {
        try Job.submit(exclusive: exclusive, body, mapError: Self.mapError) { core.enqueue($0) }
    }

    /// As ``submit(exclusive:_:)`` but returns at once: `completion` gets the outcome after the commit.
    func enqueue<T: Sendable>(
        _ body: @escaping @Sendable (PostgresWriteTransaction) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        core.enqueue(Job.repeatable(exclusive: false, body, mapError: Self.mapError, completion: completion))
    }

    /// One queued job: its body, and where its outcome goes.
    typealias Job = WriteJob<PostgresWriteTransaction>

    /// PostgreSQL's errors as CloudStore's, for the callers.
    private static let mapError: @Sendable (any Error) -> any Error = { ($0 as? PostgresError)?.cloudStoreError ?? $0 }

    final class Core: Sendable {
        private let pool: PostgresPool
        private let changeLog: PostgresChangeLog
        private let committed: @Sendable (PostgresWriteTransaction) -> Void
        private let makeGroupState: @Sendable (PostgresWriteTransaction) throws -> (any PostgresWriteGroupState)?
        private let queue = Mutex<(jobs: [Job], stopping: Bool)>(([], false))
        private let wakeup = DispatchSemaphore(value: 0)
        let statistics = Mutex(WriteStatistics())
        /// The most jobs in one transaction: enough to amortise a commit, and no more than the
        /// 64 subtransactions PostgreSQL keeps in memory per transaction. Each job's savepoint
        /// that writes is one, until the whole transaction ends; past 64, every other session's
        /// snapshot must look them up on disk while the group runs.
        static let maximumGroup = 64
        /// How often a group that lost a deadlock or serialization race is run again.
        static let attempts = 5

        init(
            pool: PostgresPool, changeLog: PostgresChangeLog,
            makeGroupState: @escaping @Sendable (PostgresWriteTransaction) throws -> (any PostgresWriteGroupState)?,
            committed: @escaping @Sendable (PostgresWriteTransaction) -> Void
        ) {
            self.pool = pool
            self.changeLog = changeLog
            self.makeGroupState = makeGroupState
            self.committed = committed
        }

        func enqueue(_ job: Job) {
            queue.withLock { $0.jobs.append(job) }
            wakeup.signal()
        }

        func stop() {
            queue.withLock { $0.stopping = true }
            wakeup.signal()
        }

        func run() {
            while true {
                wakeup.wait()
                while true {
                    let (group, stopping) = queue.withLock { state -> ([Job], Bool) in
                        guard let first = state.jobs.first else { return ([], state.stopping) }
                        if first.exclusive {
                            state.jobs.removeFirst()
                            return ([first], false)
                        }
                        let count = min(Self.maximumGroup, state.jobs.prefix { !$0.exclusive }.count)
                        defer { state.jobs.removeFirst(count) }
                        return (Array(state.jobs.prefix(count)), false)
                    }
                    if group.isEmpty {
                        if stopping { return }
                        break
                    }
                    runGroup(group)
                }
            }
        }

        /// Runs a group as one transaction; when it lost a deadlock or serialization race, runs
        /// it again, without the jobs that may not run twice (they are told to try again).
        private func runGroup(_ group: [Job]) {
            var group = group
            var attempt = 1
            while !group.isEmpty {
                do {
                    let (results, done) = try pool.withConnection { connection in try transaction(group, on: connection) }
                    statistics.withLock { statistics in
                        statistics.transactions += 1
                        statistics.jobs += group.count
                        statistics.largestGroup = max(statistics.largestGroup, group.count)
                    }
                    var deferred: [Job] = []
                    for (job, result) in zip(group, results) {
                        if let result { job.finish(result) } else { deferred.append(job) }
                    }
                    if let done { committed(done) }
                    if !deferred.isEmpty {
                        // First in line again: the next group's first job waits for the rows.
                        queue.withLock { $0.jobs.insert(contentsOf: deferred, at: 0) }
                        wakeup.signal()
                    }
                    return
                } catch let error as PostgresError where error.isRetryable && attempt < Self.attempts {
                    attempt += 1
                    for job in group where !job.repeatable { job.finish(.failure(error.cloudStoreError)) }
                    group.removeAll { !$0.repeatable }
                } catch {
                    let reported = (error as? PostgresError)?.cloudStoreError ?? error
                    for job in group { job.finish(.failure(reported)) }
                    return
                }
            }
        }

        /// One transaction of the group's jobs: each job's result (`nil` for a job that found a
        /// row it needs held elsewhere and must run again, first in a later group), and the
        /// transaction once it has committed (`nil` when a lone job failed and it was rolled back).
        private func transaction(_ group: [Job], on connection: PostgresConnection) throws -> (
            [Result<any Sendable, any Error>?], PostgresWriteTransaction?
        ) {
            try connection.begin()
            do {
                let transaction = PostgresWriteTransaction(connection: connection, changeLog: changeLog)
                transaction.groupState = try makeGroupState(transaction)
                var results: [Result<any Sendable, any Error>?] = []
                for (index, job) in group.enumerated() {
                    if group.count == 1 {
                        let result = Result { try job.perform(on: transaction) }
                        if case .failure(let error) = result { throw error }
                        results.append(result)
                    } else {
                        transaction.waitsForLocks = index == 0 || !job.repeatable
                        transaction.groupState?.beginJob()
                        let result = Result { try transaction.savepoint { try job.perform(on: transaction) } }
                        if case .failure = result { transaction.groupState?.undoJob() }
                        if case .failure(let error as PostgresError) = result {
                            // A race lost by one job is lost by the transaction: run them all again.
                            if error.isRetryable || connection.isBroken { throw error }
                            if error.isLockNotAvailable && !transaction.waitsForLocks {
                                results.append(nil)
                                continue
                            }
                        }
                        results.append(result)
                    }
                }
                _ = try connection.pipeline(
                    (transaction.groupState?.finalStatements() ?? []) + changeLog.commitStatements(transaction.pending))
                return (results, transaction)
            } catch {
                connection.rollback()
                // A lone job's own failure is its result, as in a group.
                if group.count == 1, !(error is PostgresError && ((error as! PostgresError).isRetryable || connection.isBroken)) {
                    return ([.failure(error)], nil)
                }
                throw error
            }
        }
    }
}
