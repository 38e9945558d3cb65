import Synchronization

/// A job handed to an environment's writer thread: the caller's closure over what the writer
/// runs jobs on (`Target`: SQLite's writer connection, PostgreSQL's write transaction), and who
/// to tell the outcome. Both backends' writer queues carry it the same way.
final class WriteJob<Target>: Sendable {
    /// A caller's closure, carried to the writer thread.
    ///
    /// `@unchecked Sendable` is sound because the closure is either `@Sendable` itself (a job
    /// handed off with `enqueue`), or its caller blocks in ``submit(exclusive:_:enqueue:)`` from
    /// the moment it submits until the writer has finished running the closure and reported:
    /// the closure's captured state is then used by one thread at a time, the semaphore ordering
    /// the two threads' accesses, and the closure never outlives `submit`
    /// (`withoutActuallyEscaping`).
    struct Body: @unchecked Sendable {
        let run: (Target) throws -> any Sendable
    }

    /// Whether the job runs alone in its own transaction.
    let exclusive: Bool
    /// Whether the closure may run again after its transaction was rolled back: it acts only
    /// through the target. A caller's closure that `submit` carries may change what it captured,
    /// so it runs once.
    let repeatable: Bool
    /// Taken (and so released) by the writer before it reports: `withoutActuallyEscaping` checks
    /// that nothing holds the caller's closure once `submit` returns.
    private let body: Mutex<Body?>
    private let report: @Sendable (Result<any Sendable, any Error>) -> Void

    init(
        exclusive: Bool, repeatable: Bool, body: Body, report: @escaping @Sendable (Result<any Sendable, any Error>) -> Void
    ) {
        self.exclusive = exclusive
        self.repeatable = repeatable
        self.body = Mutex(body)
        self.report = report
    }

    /// Runs the caller's closure: once, dropping it afterwards, unless the job is repeatable
    /// (then ``finish(_:)`` drops it).
    func perform(on target: Target) throws -> any Sendable {
        guard let body = body.withLock({ repeatable ? $0 : $0.take() }) else {
            throw CloudStoreError.internalError("A write job ran twice")
        }
        return try body.run(target)
    }

    /// Drops the closure if it never ran, then tells the caller.
    func finish(_ result: Result<any Sendable, any Error>) {
        body.withLock { $0 = nil }
        report(result)
    }

    /// Hands `body` to a writer with `enqueue` and waits for its outcome: what it returned once
    /// its transaction committed, or what it or the commit threw, as `mapError` turns it.
    static func submit<T: Sendable>(
        exclusive: Bool, _ body: (Target) throws -> T, mapError: @escaping @Sendable (any Error) -> any Error,
        enqueue: (WriteJob) -> Void
    ) throws -> T {
        try withoutActuallyEscaping(body) { body in
            let value: any Sendable = try waitForCompletion { report in
                enqueue(WriteJob(exclusive: exclusive, repeatable: false, body: Body { try body($0) }) { report($0.mapError(mapError)) })
            }
            return value as! T
        }
    }

    /// A job that may run more than once, whose `completion` gets the outcome as `mapError` turns it.
    static func repeatable<T: Sendable>(
        exclusive: Bool, _ body: @escaping @Sendable (Target) throws -> T, mapError: @escaping @Sendable (any Error) -> any Error,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) -> WriteJob {
        WriteJob(exclusive: exclusive, repeatable: true, body: Body { try body($0) }) { result in
            completion(result.map { $0 as! T }.mapError(mapError))
        }
    }
}
