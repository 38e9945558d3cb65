import Synchronization

/// Token buckets by key (a client address, a container environment): each key may spend `burst`
/// at once and earns `ratePerSecond` back over time. Kept in memory; keys idle long enough to be
/// full again are swept out, so memory stays bounded by the keys active recently.
///
/// Each bucket is one number — the time at which it will be full again (the generic cell rate
/// algorithm, equivalent to a token bucket) — changed with compare-and-swap, so that every
/// request of a busy environment spending from one bucket never waits on a lock; the table of
/// buckets is only written when a key comes or goes.
final class KeyedRateLimiter<Key: Hashable & Sendable>: Sendable {
    /// A key's bucket: when, in nanoseconds, it will be full again.
    private final class Bucket: Sendable {
        let fullAt: Atomic<Int64>
        init(fullAt: Int64) { self.fullAt = Atomic(fullAt) }
    }

    private let ratePerSecond: Double
    private let burst: Double
    private let buckets = ReadWriteLock<[Key: Bucket]>([:])
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

    /// Spends one token of `key`'s bucket at `now`, at this process's share of the limiter's
    /// rate and burst when `processes` share them (see the next method).
    func take(_ key: Key, sharedBy processes: Int, now: Int64) -> Int? {
        take(key, ratePerSecond: ratePerSecond, burst: burst, sharedBy: processes, now: now)
    }

    /// Spends one token of `key`'s bucket at `now`, at this process's share of a rate and burst
    /// that `processes` share, each from a bucket of its own: the rate divided among them, and
    /// the burst too (rounded down, at least one). Together they admit the rate, and at once the
    /// burst or, when it is smaller than the processes, one each.
    func take(_ key: Key, ratePerSecond: Double, burst: Double, sharedBy processes: Int, now: Int64) -> Int? {
        let share = Double(max(1, processes))
        return take(key, ratePerSecond: ratePerSecond / share, burst: max(1, (burst / share).rounded(.down)), now: now)
    }

    /// Spends one token of `key`'s bucket at `now`, with this key's own rate and burst.
    /// - Returns: `nil` when allowed, else the whole seconds (1 to a day) until a token will be there.
    func take(_ key: Key, ratePerSecond: Double, burst: Double, now: Int64) -> Int? {
        // Nanoseconds, bounded so that a day of any rate and burst stays far inside Int64.
        let interval = Int64(min(86_400e9, 1e9 / max(ratePerSecond, 0.000_001)).rounded(.up))
        let capacity = Int64(min(86_400e9 * 1000, Double(interval) * max(1, burst)))
        let time = now &* 1_000_000
        let bucket = bucket(of: key, now: time)
        var full = bucket.fullAt.load(ordering: .relaxed)
        while true {
            // An empty bucket's debt starts from now; each token adds one interval to it.
            let next = max(full, time) + interval
            guard next - time <= capacity else {
                let wait = Double(next - capacity - time) / 1e9
                return max(1, Int(min(86_400, wait.rounded(.up))))
            }
            let (exchanged, found) = bucket.fullAt.compareExchange(
                expected: full, desired: next, successOrdering: .relaxed, failureOrdering: .relaxed)
            if exchanged { return nil }
            full = found
        }
    }

    /// The bucket of `key`, made full when new; past ``sweepAbove`` keys, those full again by
    /// `now` are forgotten first (a full bucket is the same as none).
    private func bucket(of key: Key, now: Int64) -> Bucket {
        if let known = buckets.read({ $0[key] }) { return known }
        return buckets.write { buckets in
            if let known = buckets[key] { return known }
            if buckets.count > Self.sweepAbove {
                buckets = buckets.filter { $0.value.fullAt.load(ordering: .relaxed) > now }
            }
            let made = Bucket(fullAt: now)
            buckets[key] = made
            return made
        }
    }

    /// Forgets a key's bucket, so that it starts full again.
    func reset(_ key: Key) {
        _ = buckets.write { $0.removeValue(forKey: key) }
    }
}
