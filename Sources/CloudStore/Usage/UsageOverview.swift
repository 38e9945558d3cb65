/// What a usage page shows, from one read of the usage minutes: the range, the report over it
/// and its summary.
public struct UsageOverview: Hashable, Sendable {
    /// The range shown: the one asked for, or the shortest that holds the last week's calls.
    public var range: UsageRange
    /// The environment's usage against its limits and per bucket of the range.
    public var report: UsageReport
    /// The range's calls in figures, with the breakdown by operation.
    public var summary: UsageSummary
}

/// The minutes a usage range covers at a moment: equal buckets aligned to their size, the last
/// one holding the moment.
struct UsageSpan {
    /// The first minute of the first bucket (minutes since 1970).
    let firstStart: Int64
    /// The minute after the last bucket.
    let end: Int64

    init(_ range: UsageRange, now: Int64) {
        let bucket = range.bucketMinutes
        let lastStart = now / 60_000 / bucket * bucket
        firstStart = lastStart - bucket * Int64(range.bucketCount - 1)
        end = lastStart + bucket
    }

    /// The earliest minute any range, or the last week that tells which range fits, starts at.
    static func earliestMinute(now: Int64) -> Int64 {
        min(UsageSpan(.week, now: now).firstStart, now / 60_000 - UsageRange.week.bucketMinutes * Int64(UsageRange.week.bucketCount))
    }
}
