import Synchronization

/// Token buckets by key (a client address, a container environment): each key may spend `burst`
/// at once and earns `ratePerSecond` back over time. Kept in memory; keys idle long enough to be
/// full again are swept out, so memory stays bounded by the keys active recently.
final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64
    }

    private let ratePerSecond: Double
    private let burst: Double
    private let buckets = Mutex<[Key: Bucket]>([:])
    private static var sweepAbove: Int { 100_000 }

    /// A limiter allowing `burst` at once and `ratePerSecond` sustained, per key, unless a call
    /// gives its own.
    init(ratePerSecond: Double, burst: Double) {
        self.ratePerSecond = ratePerSecond
        self.burst = max(1, burst)
    }

    /// Spends one token of `key`'s bucket at `now` (milliseconds), at the limiter's rate.
    /// - Returns: `nil` when allowed, else the whole seconds until a token will be there.
    func take(_ key: Key, now: Int64) -> Int? {
        take(key, ratePerSecond: ratePerSecond, burst: burst, now: now)
    }

    /// Spends one token of `key`'s bucket at `now`, with this key's own rate and burst.
    /// - Returns: `nil` when allowed, else the whole seconds (1 to a day) until a token will be there.
    func take(_ key: Key, ratePerSecond: Double, burst: Double, now: Int64) -> Int? {
        let rate = max(ratePerSecond, 0.000_001)
        let burst = max(1, burst)
        return buckets.withLock { buckets in
            if buckets.count > Self.sweepAbove {
                let refill = Int64(burst / rate * 1000)
                buckets = buckets.filter { now - $0.value.updated < refill }
            }
            var bucket = buckets[key] ?? Bucket(tokens: burst, updated: now)
            let elapsed = Double(max(0, now - bucket.updated)) / 1000
            bucket.tokens = min(burst, bucket.tokens + elapsed * rate)
            bucket.updated = now
            defer { buckets[key] = bucket }
            guard bucket.tokens >= 1 else {
                // The bound only keeps the conversion safe: the slowest limit waits 1,000 s.
                return max(1, Int(min(86_400, ((1 - bucket.tokens) / rate).rounded(.up))))
            }
            bucket.tokens -= 1
            return nil
        }
    }

    /// Forgets a key's bucket, so that it starts full again.
    func reset(_ key: Key) {
        _ = buckets.withLock { $0.removeValue(forKey: key) }
    }
}
