import CloudStore

/// What the Usage page shows, read at once: the usage over a span against the limits, and the
/// span in figures. The management API and the command line send the summary
/// (``UsageSummaryView``); the buckets are the `usage` route's.
public struct UsageOverviewView: Equatable, Sendable {
    /// The span shown: the one asked for, or the one that fits the calls.
    public var range: UsageRange
    /// The usage against the limits, per bucket of the span.
    public var usage: UsageView
    /// The span in figures.
    public var summary: UsageSummaryView

    init(_ overview: UsageOverview) {
        range = overview.range
        usage = UsageView(overview.report, range: overview.range)
        summary = UsageSummaryView(overview.summary, range: overview.range, limits: overview.report.limits)
    }
}
