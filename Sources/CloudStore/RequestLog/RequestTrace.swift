import Synchronization

/// What the checks of one request decided, recorded by the code that enforces them at the time
/// of the call: every access refusal and, for a sampled request, what was allowed too; and, in
/// production, the record type, field or index the schema lacked when that refused the request.
/// The request log keeps them with the call, so that an operator reads why it was refused.
///
/// A request's decisions may be taken on the environment's writer thread, so the trace travels
/// with the database handle rather than as a task-local value.
public final class RequestTrace: Sendable {
    /// Whether allowed decisions are recorded too, not only refusals: a sampled request.
    public let recordsAllowed: Bool
    private let recorded = Mutex(Recorded())

    /// What the checks recorded, under one lock.
    struct Recorded {
        /// The decisions explained, in the order they were taken.
        var explanations: [AccessExplanation] = []
        /// The first gap of production's schema that refused the request.
        var schemaGap: SchemaGap?
    }

    /// Explanations kept for one request at most: a batch refused record by record repeats one
    /// decision, and the first few say why.
    static let capacity = 8

    /// A trace recording refusals, and allowed decisions too when `recordsAllowed`.
    public init(recordsAllowed: Bool = false) {
        self.recordsAllowed = recordsAllowed
    }

    /// Whether a decision of `permission` on `recordType` is worth explaining: a refusal, or
    /// anything in a sampled request, unless the same decision is explained already or the
    /// trace is full. Asked before an explanation is made, since making one reads and allocates.
    @inline(__always)
    func wants(_ decision: AccessDecision, _ permission: Permission?, recordType: String?) -> Bool {
        if decision.isAllowed, !recordsAllowed { return false }
        return recorded.withLock { kept in
            kept.explanations.count < Self.capacity
                && !kept.explanations.contains { $0.decision == decision && $0.permission == permission && $0.recordType == recordType }
        }
    }

    /// Keeps `explanation`, unless one alike but for the record is kept or the trace is full.
    func record(_ explanation: AccessExplanation) {
        recorded.withLock { kept in
            guard kept.explanations.count < Self.capacity, !kept.explanations.contains(where: { $0.isAlike(explanation) }) else { return }
            kept.explanations.append(explanation)
        }
    }

    /// Records a refusal by a rule about the caller alone (see
    /// ``AccessExplanation/refusal(caller:database:rule:why:)``).
    public func recordRefusal(caller: String, database: String, rule: String, why: String) {
        record(.refusal(caller: caller, database: database, rule: rule, why: why))
    }

    /// Records that production's schema lacked `gap`, which refused the request; the first is kept.
    func recordSchemaGap(_ gap: SchemaGap) {
        recorded.withLock { kept in kept.schemaGap = kept.schemaGap ?? gap }
    }

    /// What was recorded, read at once, for the request log.
    var contents: Recorded { recorded.withLock { $0 } }
}

/// Which requests record their allowed access decisions too: one in every so many, so that an
/// operator sees why calls succeed at a cost the rate bounds. Refusals are always recorded.
public final class RequestTraceSampler: Sendable {
    /// The share of requests sampled, from 0 (none) to 1 (every one).
    public let rate: Double
    /// Every how many requests one is sampled; 0 for none.
    private let period: UInt64
    /// Requests counted so far; from 1, so that the first sampled is the period's last.
    private let count = Atomic<UInt64>(1)

    /// The default rate: one request in a hundred, whose cost stays far within the API's
    /// budget (BENCHMARKS.md measures it).
    public static let defaultRate = 0.01

    /// A sampler of `rate`, clamped to 0…1.
    public init(rate: Double = RequestTraceSampler.defaultRate) {
        let rate = rate.isNaN ? 0 : min(max(rate, 0), 1)
        self.rate = rate
        period = rate > 0 ? UInt64((1 / rate).rounded()) : 0
    }

    /// A new request's trace, sampled or not: counted rather than drawn, since a draw from the
    /// system's generator costs a system call a request.
    public func trace() -> RequestTrace {
        guard period > 0 else { return RequestTrace() }
        let index = count.wrappingAdd(1, ordering: .relaxed).oldValue
        return RequestTrace(recordsAllowed: index % period == 0)
    }
}
