/// An environment's calls over a usage range in figures: totals, error rate, answer times for
/// the period, the busiest second against the limit, and CloudKit Telemetry's view, a
/// breakdown by operation.
public struct UsageSummary: Hashable, Sendable {
    /// The range as one bucket: calls, errors (a status of 400 or more), bytes in and out,
    /// and the median and 99th percentile answer times over the whole range (no storage).
    public var totals: UsagePoint
    /// The most calls answered within one second of the range, from the request log; `nil`
    /// when the log holds none of the range's calls.
    public var peakPerSecond: Int64?
    /// The range's calls by operation, most called first, from the request log.
    public var operations: [OperationUsage]
    /// How many of the range's calls the breakdown and the peak were read from: fewer than the
    /// calls answered when the log keeps calls for less long than the range, or the range
    /// holds more than ``UsageSummary/maximumCallsRead``.
    public var callsRead: Int
    /// When the environment's latest call of the last week was made, in milliseconds since 1970;
    /// `nil` for an environment without traffic in the last week.
    public var lastActivity: Int64?

    /// Creates a summary.
    public init(totals: UsagePoint, peakPerSecond: Int64? = nil, operations: [OperationUsage], callsRead: Int, lastActivity: Int64? = nil) {
        self.totals = totals
        self.peakPerSecond = peakPerSecond
        self.operations = operations
        self.callsRead = callsRead
        self.lastActivity = lastActivity
    }

    /// The most calls the breakdown reads, the newest of the range.
    public static let maximumCallsRead = 10_000

}

/// One operation's calls over a usage range.
public struct OperationUsage: Hashable, Sendable {
    /// The operation, as the request log names it (`records/query`).
    public var operation: String
    /// Calls made.
    public var requests: Int64
    /// Calls answered with a status of 400 or more.
    public var errors: Int64
    /// Calls answered `200` whose records (zones, subscriptions) failed one by one.
    public var partialFailures: Int64
    /// The median answer time, in microseconds.
    public var p50Microseconds: Int64?
    /// The 99th percentile answer time, in microseconds.
    public var p99Microseconds: Int64?

    /// Creates an operation's figures.
    public init(
        operation: String, requests: Int64, errors: Int64, partialFailures: Int64, p50Microseconds: Int64? = nil,
        p99Microseconds: Int64? = nil
    ) {
        self.operation = operation
        self.requests = requests
        self.errors = errors
        self.partialFailures = partialFailures
        self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds
    }
}
