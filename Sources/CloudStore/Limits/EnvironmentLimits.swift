/// What one environment of a container may use: a request rate (a token bucket), storage, and
/// transfer per calendar month (UTC). Limits are data an operator edits; past one, requests are
/// refused with THROTTLED (and `retryAfter`) or QUOTA_EXCEEDED.
public struct EnvironmentLimits: Hashable, Sendable {
    /// Requests per second the bucket earns back.
    public var requestsPerSecond: Double
    /// Requests the bucket holds: how many may come at once after a quiet time.
    public var burst: Int
    /// Bytes of records (as the 1 MB record limit counts them) the environment may hold; `nil`
    /// for no limit.
    public var storageBytes: Int64?
    /// Bytes of requests and answers the environment's API may carry in a calendar month (UTC);
    /// `nil` for no limit.
    public var transferBytesPerMonth: Int64?

    /// Creates limits.
    public init(requestsPerSecond: Double, burst: Int, storageBytes: Int64? = nil, transferBytesPerMonth: Int64? = nil) {
        self.requestsPerSecond = requestsPerSecond
        self.burst = burst
        self.storageBytes = storageBytes
        self.transferBytesPerMonth = transferBytesPerMonth
    }

    /// What an environment gets until an operator says otherwise: a rate no single app server
    /// reaches by accident, and no storage or transfer limit — the server is the user's own.
    public static let standard = EnvironmentLimits(requestsPerSecond: 5_000, burst: 10_000)

    /// CloudKit's public database: 40 requests per second.
    public static let cloudKit = EnvironmentLimits(requestsPerSecond: 40, burst: 40)

    /// The named presets, as the console and the management API offer them.
    public static let presets: [(name: String, limits: EnvironmentLimits)] = [("standard", standard), ("cloudkit", cloudKit)]

    /// The preset these limits equal, if any.
    public var presetName: String? { Self.presets.first { $0.limits == self }?.name }

    /// The highest request rate accepted: beyond it a bucket's arithmetic stops meaning anything.
    public static let maximumRequestsPerSecond: Double = 10_000_000
    /// The lowest: one request in a thousand seconds.
    public static let minimumRequestsPerSecond = 0.001

    /// Refuses limits that cannot work.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the limit.
    public func validate() throws {
        guard requestsPerSecond.isFinite, requestsPerSecond >= Self.minimumRequestsPerSecond,
            requestsPerSecond <= Self.maximumRequestsPerSecond
        else {
            throw CloudStoreError.badRequest("requestsPerSecond must be between 0.001 and 10,000,000")
        }
        guard burst >= 1, burst <= 100_000_000 else {
            throw CloudStoreError.badRequest("burst must be between 1 and 100,000,000 requests")
        }
        if let storageBytes, storageBytes < 0 { throw CloudStoreError.badRequest("storageBytes must not be negative") }
        if let transferBytesPerMonth, transferBytesPerMonth < 0 {
            throw CloudStoreError.badRequest("transferBytesPerMonth must not be negative")
        }
    }
}
