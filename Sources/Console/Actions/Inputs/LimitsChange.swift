import CloudKitWire
import CloudStore
import Foundation

/// A change to an environment's limits, as a page, a script or the CLI asks for it: a preset to
/// start from, then any limit to set, and the storage or transfer limit to remove.
public struct LimitsChange: Sendable, Equatable {
    /// What becomes of a limit that may be absent.
    public enum Setting: Sendable, Equatable {
        /// The limit keeps its value.
        case keep
        /// The limit is removed: no limit.
        case remove
        /// The limit becomes this value.
        case set(Int64)
    }

    /// The name of the preset the change starts from (one of ``EnvironmentLimits/presets``), or
    /// `nil` to start from the limits as they are.
    public var preset: String?
    /// The sustained requests a second, or `nil` to keep it.
    public var requestsPerSecond: Double?
    /// The requests at once after a quiet time, or `nil` to keep it.
    public var burst: Int?
    /// The bytes of records the environment may hold.
    public var storageBytes: Setting = .keep
    /// The bytes of requests and answers a month.
    public var transferBytesPerMonth: Setting = .keep

    /// Creates a change.
    public init(
        preset: String? = nil, requestsPerSecond: Double? = nil, burst: Int? = nil, storageBytes: Setting = .keep,
        transferBytesPerMonth: Setting = .keep
    ) {
        self.preset = preset
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.storageBytes = storageBytes
        self.transferBytesPerMonth = transferBytesPerMonth
    }

    /// Reads a change from JSON: `preset` (`standard`, `cloudkit`), then any of
    /// `requestsPerSecond`, `burst`, `storageBytes` and `transferBytesPerMonth` (numbers, or
    /// numeric strings as forms send them); `null` or an empty string removes a storage or
    /// transfer limit; a limit not named keeps its value.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the value that cannot be a limit.
    public init(json: JSONValue) throws {
        guard let changes = json.objectValue else { throw CloudStoreError.badRequest("The limits must be a JSON object") }
        if let preset = changes["preset"], !preset.isNull, preset.stringValue != "" {
            guard let name = preset.stringValue, let found = EnvironmentLimits.presets.first(where: { $0.name == name }) else {
                throw CloudStoreError.badRequest("Unknown preset: use \(EnvironmentLimits.presets.map(\.name).joined(separator: " or "))")
            }
            self.preset = found.name
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
        func setting(_ key: String) throws -> Setting {
            if let value = try whole(key) { return .set(value) }
            guard let value = changes[key] else { return .keep }
            return value.isNull || value.stringValue?.trimmingCharacters(in: .whitespaces) == "" ? .remove : .keep
        }
        requestsPerSecond = try number("requestsPerSecond")
        burst = try whole("burst").map { Int(clamping: $0) }
        storageBytes = try setting("storageBytes")
        transferBytesPerMonth = try setting("transferBytesPerMonth")
    }

    /// The limits after this change is applied to `limits`.
    public func applied(to limits: EnvironmentLimits) -> EnvironmentLimits {
        var changed = EnvironmentLimits.presets.first { $0.name == preset }?.limits ?? limits
        if let requestsPerSecond { changed.requestsPerSecond = requestsPerSecond }
        if let burst { changed.burst = burst }
        switch storageBytes {
        case .keep: break
        case .remove: changed.storageBytes = nil
        case .set(let value): changed.storageBytes = value
        }
        switch transferBytesPerMonth {
        case .keep: break
        case .remove: changed.transferBytesPerMonth = nil
        case .set(let value): changed.transferBytesPerMonth = value
        }
        return changed
    }
}
