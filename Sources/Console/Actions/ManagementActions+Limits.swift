import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Limits

    /// An environment's limits, with the presets an operator may pick.
    public func limits(of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws -> LimitsView {
        LimitsView(try store.limits(of: try existingContainer(container), environment))
    }

    /// Changes an environment's limits. `changes` may name a `preset` (`standard`, `cloudkit`)
    /// to start from, then any of `requestsPerSecond`, `burst`, `storageBytes` and
    /// `transferBytesPerMonth` (numbers, or numeric strings as forms send them); `null` or an
    /// empty string removes a storage or transfer limit; a limit not named keeps its value.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the value that cannot be a limit.
    public func setLimits(
        _ changes: JSONValue, of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> LimitsView {
        let identifier = try existingContainer(container)
        guard let changes = changes.objectValue else { throw CloudStoreError.badRequest("The limits must be a JSON object") }
        var limits = try store.limits(of: identifier, environment)
        if let preset = changes["preset"], !preset.isNull, preset.stringValue != "" {
            guard let name = preset.stringValue, let found = EnvironmentLimits.presets.first(where: { $0.name == name }) else {
                throw CloudStoreError.badRequest(
                    "Unknown preset: use \(EnvironmentLimits.presets.map(\.name).joined(separator: " or "))")
            }
            limits = found.limits
        }
        func number(_ key: String) throws -> Double? {
            guard let value = changes[key], !value.isNull, value.stringValue?.trimmingCharacters(in: .whitespaces) != "" else { return nil }
            let text = value.stringValue?.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: ",", with: "")
            guard let number = text.map({ JSONValue.string($0) })?.doubleValue(acceptingNumericString: true) ?? value.doubleValue,
                number.isFinite
            else { throw CloudStoreError.badRequest("\(key) must be a number") }
            return number
        }
        func whole(_ key: String) throws -> Int64? {
            guard let number = try number(key) else { return nil }
            guard number == number.rounded(), number >= 0, number < 9.0e18 else {
                throw CloudStoreError.badRequest("\(key) must be a whole number, 0 or more")
            }
            return Int64(number)
        }
        func removes(_ key: String) -> Bool {
            guard let value = changes[key] else { return false }
            return value.isNull || value.stringValue?.trimmingCharacters(in: .whitespaces) == ""
        }
        if let rate = try number("requestsPerSecond") { limits.requestsPerSecond = rate }
        if let burst = try whole("burst") { limits.burst = Int(clamping: burst) }
        if let storage = try whole("storageBytes") {
            limits.storageBytes = storage
        } else if removes("storageBytes") {
            limits.storageBytes = nil
        }
        if let transfer = try whole("transferBytesPerMonth") {
            limits.transferBytesPerMonth = transfer
        } else if removes("transferBytesPerMonth") {
            limits.transferBytesPerMonth = nil
        }
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
