import Synchronization

/// Token buckets by key (a client address, a container): each key may spend `burst` at once and
/// earns `ratePerSecond` back over time. Kept in memory; keys idle long enough to be full again
/// are swept out, so memory stays bounded by the keys active recently.
final class KeyedRateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let ratePerSecond: Double
    private let burst: Double
    private let buckets = Mutex<[String: Bucket]>([:])
    private static let sweepAbove = 100_000

    /// A limiter allowing `burst` at once and `ratePerSecond` sustained, per key.
    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst)
    }

    /// Spends one token of `key`'s bucket at `now` (milliseconds).
    /// - Returns: `nil` when allowed, else the whole seconds until a token will be there.
    func take(_ key: String, now: Int64) -> Int? {
        buckets.withLock { buckets in
            if buckets.count > Self.sweepAbove {
                let refill = Int64(burst / max(ratePerSecond, 0.000_001) * 1000)
                buckets = buckets.filter { now - $0.value.updated < refill }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * ratePerSecond)
            bucket.updated = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                return Int(((1 - bucket.tokens) / max(ratePerSecond, 0.000_001)).rounded(.up))
            }
            bucket.tokens -= 1
            return nil
        }
    }
}
