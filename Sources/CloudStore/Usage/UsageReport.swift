/// The spans the usage charts cover, each cut into equal buckets.
public enum UsageRange: String, CaseIterable, Sendable {
    /// The last hour, minute by minute.
    case hour
    /// The last day, in quarters of an hour.
    case day
    /// The last week, hour by hour.
    case week

    /// Minutes in one bucket.
    public var bucketMinutes: Int64 {
        switch self {
        case .hour: 1
        case .day: 15
        case .week: 60
        }
    }

    /// Buckets in the span.
    public var bucketCount: Int {
        switch self {
        case .hour: 60
        case .day: 96
        case .week: 168
        }
    }
}

/// What an environment served in one bucket of a usage chart.
public struct UsagePoint: Hashable, Sendable {
    /// When the bucket begins, in milliseconds since 1970.
    public var start: Int64
    /// API calls answered.
    public var requests: Int64
    /// Of those, answers with a status of 400 or more.
    public var errors: Int64
    /// Bytes of request bodies.
    public var bytesIn: Int64
    /// Bytes of response bodies.
    public var bytesOut: Int64
    /// The median answer time, in microseconds; `nil` without calls.
    public var p50Microseconds: Int64?
    /// The 99th percentile answer time, in microseconds; `nil` without calls.
    public var p99Microseconds: Int64?
    /// Bytes of records held at the end of the bucket, as last measured; `nil` before any measure.
    public var storageBytes: Int64?

    /// Creates a bucket's figures.
    public init(
        start: Int64, requests: Int64, errors: Int64, bytesIn: Int64, bytesOut: Int64, p50Microseconds: Int64? = nil,
        p99Microseconds: Int64? = nil, storageBytes: Int64? = nil
    ) {
        self.start = start
        self.requests = requests
        self.errors = errors
        self.bytesIn = bytesIn
        self.bytesOut = bytesOut
        self.p50Microseconds = p50Microseconds
        self.p99Microseconds = p99Microseconds
        self.storageBytes = storageBytes
    }
}

/// An environment's usage against its limits, and its usage over a span of time.
public struct UsageReport: Hashable, Sendable {
    /// The span the points cover.
    public var range: UsageRange
    /// The environment's limits.
    public var limits: EnvironmentLimits
    /// What it holds now.
    public var stored: EnvironmentUsage
    /// Bytes its API carried this calendar month (UTC), requests and answers.
    public var transferThisMonth: Int64
    /// When this month began, in milliseconds since 1970.
    public var monthStart: Int64
    /// One point per bucket, oldest first.
    public var points: [UsagePoint]
}
