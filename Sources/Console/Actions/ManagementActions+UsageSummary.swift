import CloudStore

extension ManagementActions {
    /// An environment's calls over a span in figures: totals, error rate, answer times, the
    /// busiest second, and the breakdown by operation.
    public func usageSummary(
        of container: ContainerIdentifier, environment: Environment, range span: UsageRange, as actor: OperatorIdentity
    ) throws -> UsageSummaryView {
        UsageSummaryView(try store.usageSummary(of: try existingContainer(container), environment, range: span), range: span)
    }

    /// The shortest usage span that holds an environment's calls of the last week; `nil` without any.
    public func fittingUsageRange(of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws
        -> UsageRange?
    {
        try store.fittingUsageRange(of: try existingContainer(container), environment)
    }
}
