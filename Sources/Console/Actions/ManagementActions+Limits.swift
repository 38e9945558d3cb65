import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Limits

    /// An environment's limits, with the presets an operator may pick.
    public func limits(of container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        Self.limitsJSON(try store.limits(of: try existingContainer(container), try Self.environment(environment)))
    }

    /// Changes an environment's limits. `changes` may name a `preset` (`standard`, `cloudkit`)
    /// to start from, then any of `requestsPerSecond`, `burst`, `storageBytes` and
    /// `transferBytesPerMonth` (numbers, or numeric strings as forms send them); `null` or an
    /// empty string removes a storage or transfer limit; a limit not named keeps its value.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the value that cannot be a limit.
    public func setLimits(_ changes: JSONValue, of container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let environment = try Self.environment(environment)
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
        if let storage = try whole("storageBytes") { limits.storageBytes = storage } else if removes("storageBytes") { limits.storageBytes = nil }
        if let transfer = try whole("transferBytesPerMonth") {
            limits.transferBytesPerMonth = transfer
        } else if removes("transferBytesPerMonth") {
            limits.transferBytesPerMonth = nil
        }
        try store.setLimits(limits, of: identifier, environment, by: actor)
        return Self.limitsJSON(limits)
    }

    /// An environment's usage against its limits and over a span (`hour`, `day` or `week`).
    public func usage(of container: String, environment: String, range: String, as actor: OperatorIdentity) throws -> JSONValue {
        guard let span = UsageRange(rawValue: range) else { throw CloudStoreError.badRequest("Unknown range '\(range)': use hour, day or week") }
        let report = try store.usageReport(of: try existingContainer(container), try Self.environment(environment), range: span)
        func optional(_ value: Int64?) -> JSONValue { value.map(JSONValue.integer) ?? .null }
        return [
            "range": .string(span.rawValue), "bucketSeconds": .integer(span.bucketMinutes * 60),
            "limits": Self.limitsJSON(report.limits),
            "stored": ["records": .integer(report.stored.records), "recordBytes": .integer(report.stored.recordBytes),
                       "fileBytes": .integer(report.stored.fileBytes)],
            "transferThisMonth": .integer(report.transferThisMonth), "monthStart": Self.time(report.monthStart),
            "points": .array(report.points.map { point in
                [
                    "start": Self.time(point.start), "requests": .integer(point.requests), "errors": .integer(point.errors),
                    "bytesIn": .integer(point.bytesIn), "bytesOut": .integer(point.bytesOut), "p50Microseconds": optional(point.p50Microseconds),
                    "p99Microseconds": optional(point.p99Microseconds), "storageBytes": optional(point.storageBytes),
                ]
            }),
        ]
    }

    static func limitsJSON(_ limits: EnvironmentLimits) -> JSONValue {
        [
            "requestsPerSecond": .double(limits.requestsPerSecond), "burst": .integer(Int64(limits.burst)),
            "storageBytes": limits.storageBytes.map(JSONValue.integer) ?? .null,
            "transferBytesPerMonth": limits.transferBytesPerMonth.map(JSONValue.integer) ?? .null,
            "preset": optional(limits.presetName),
            "presets": .array(EnvironmentLimits.presets.map { preset in
                ["name": .string(preset.name), "requestsPerSecond": .double(preset.limits.requestsPerSecond),
                 "burst": .integer(Int64(preset.limits.burst))]
            }),
        ]
    }
}
