import Synchronization

/// One token bucket per container environment, each with the rate and size of its own limits:
/// a request spends a token, and tokens come back at the limit's rate up to its burst. Kept in
/// memory; a restart starts every bucket full.
final class RequestThrottle: Sendable {
    private struct Bucket {
        var tokens: Double
        /// When the tokens were counted, in milliseconds since 1970.
        var updated: Int64
    }

    private let buckets = Mutex<[EnvironmentKey: Bucket]>([:])

    /// Spends one token of `key`'s bucket at `now` (milliseconds).
    /// - Returns: `nil` when the request may go on, else the whole seconds (at least 1) until a
    ///   token will be there.
    func take(_ key: EnvironmentKey, limits: EnvironmentLimits, now: Int64) -> Int? {
        buckets.withLock { buckets in
            let burst = Double(limits.burst)
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * limits.requestsPerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                // At the slowest rate a wait is 1,000 s; the bound only keeps the conversion safe.
                return max(1, Int(min(86_400, ((1 - bucket.tokens) / limits.requestsPerSecond).rounded(.up))))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Forgets a bucket, so that new limits start from a full one.
    func reset(_ key: EnvironmentKey) {
        _ = buckets.withLock { $0.removeValue(forKey: key) }
    }
}

/// A container's environment, as a dictionary key.
struct EnvironmentKey: Hashable, Sendable {
    var container: ContainerIdentifier
    var environment: Environment
}
