import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Limits

    /// An environment's limits, with the presets an operator may pick.
    public func limits(of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws -> LimitsView {
        LimitsView(try store.limits(of: try existingContainer(container), environment))
    }

    /// Changes an environment's limits as `change` asks.
    public func setLimits(
        _ change: LimitsChange, of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> LimitsView {
        let identifier = try existingContainer(container)
        let limits = change.applied(to: try store.limits(of: identifier, environment))
        try store.setLimits(limits, of: identifier, environment, by: actor)
        return LimitsView(limits)
    }

    /// An environment's usage against its limits and over a span (`hour`, `day` or `week`).
    public func usage(
        of container: ContainerIdentifier, environment: Environment, range span: UsageRange, as actor: OperatorIdentity
    ) throws -> UsageView {
        let report = try store.usageReport(of: try existingContainer(container), environment, range: span)
        return UsageView(report, range: span)
    }

    /// The span of a usage chart a request names: `hour`, `day` or `week`.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the three.
    public static func usageRange(_ range: String) throws -> UsageRange {
        guard let span = UsageRange(rawValue: range) else {
            throw CloudStoreError.badRequest("Unknown range '\(range)': use hour, day or week")
        }
        return span
    }
}
