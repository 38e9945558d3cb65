import CloudStore

extension ManagementActions {
    /// An environment's usage over a span, from one read of its usage minutes: the charts'
    /// buckets against the limits, and the span in figures (totals, error rate, answer times,
    /// the busiest second against the limit, the breakdown by operation). Without a span, the
    /// shortest that holds the last week's calls, else a day.
    public func usageOverview(
        of container: ContainerIdentifier, environment: Environment, range span: UsageRange?, as actor: OperatorIdentity
    ) throws -> UsageOverviewView {
        UsageOverviewView(try store.usageOverview(of: try existingContainer(container), environment, range: span))
    }
}
