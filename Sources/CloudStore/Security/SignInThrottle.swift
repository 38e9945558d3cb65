import Synchronization

/// Slows down password guessing, per account and per client address: after a few failures each
/// further attempt must wait longer (1 s, 2 s, 4 s… up to a minute), and past a limit sign-in is
/// refused outright for a while. Failures are forgotten a quarter of an hour after the last one;
/// a success clears its account's failures.
///
/// Kept in memory: a restart forgets it, which costs an attacker a restart per few guesses.
/// Unlike the request rates it is not divided among the processes sharing a PostgreSQL database:
/// it counts failures rather than metering a rate, and dividing its thresholds would cut a real
/// user's free attempts on the one server they reach. Guesses spread over N servers get N times
/// the attempts before the delays, which still double with each failure on each.
final class SignInThrottle: Sendable {
    /// How one kind of key is throttled.
    struct Policy: Sendable {
        /// Failures allowed before attempts are delayed.
        var freeAttempts: Int
        /// Failures after which sign-in is refused for ``refusal``.
        var refuseAfter: Int
        /// The longest delay between attempts, in milliseconds.
        var maximumDelay: Int64 = 60_000
        /// How long a refusal lasts, and how long failures are remembered, in milliseconds.
        var refusal: Int64 = 15 * 60_000
    }

    private struct Entry {
        var failures: Int
        var lastFailure: Int64
    }

    private let accountPolicy = Policy(freeAttempts: 5, refuseAfter: 20)
    private let addressPolicy = Policy(freeAttempts: 20, refuseAfter: 100)
    private let entries = Mutex<[String: Entry]>([:])
    /// Past this many remembered keys, forgotten ones are swept out.
    private static let sweepAbove = 100_000

    /// Refuses an attempt that comes too soon.
    /// - Throws: ``CloudStoreError/throttled(_:retryAfter:)`` saying how long to wait.
    func check(account: String, address: String?, now: Int64) throws {
        try entries.withLock { entries in
            try Self.check(entries["a:" + account], accountPolicy, now, what: "this account")
            if let address { try Self.check(entries["c:" + address], addressPolicy, now, what: "this address") }
        }
    }

    /// Counts a failed attempt.
    func recordFailure(account: String, address: String?, now: Int64) {
        entries.withLock { entries in
            if entries.count > Self.sweepAbove {
                entries = entries.filter { now - $0.value.lastFailure < accountPolicy.refusal }
            }
            Self.count(&entries, "a:" + account, accountPolicy, now)
            if let address { Self.count(&entries, "c:" + address, addressPolicy, now) }
        }
    }

    /// Clears an account's failures after a successful sign-in.
    func recordSuccess(account: String) {
        _ = entries.withLock { $0.removeValue(forKey: "a:" + account) }
    }

    private static func count(_ entries: inout [String: Entry], _ key: String, _ policy: Policy, _ now: Int64) {
        if var entry = entries[key], now - entry.lastFailure < policy.refusal {
            entry.failures += 1
            entry.lastFailure = now
            entries[key] = entry
        } else {
            entries[key] = Entry(failures: 1, lastFailure: now)
        }
    }

    private static func check(_ entry: Entry?, _ policy: Policy, _ now: Int64, what: String) throws {
        guard let entry, now - entry.lastFailure < policy.refusal, entry.failures >= policy.freeAttempts else { return }
        let until: Int64
        let reason: String
        if entry.failures >= policy.refuseAfter {
            until = entry.lastFailure + policy.refusal
            reason = "Too many failed sign-ins for \(what); sign-in is refused for a while"
        } else {
            let delay = min(policy.maximumDelay, 1_000 << min(20, entry.failures - policy.freeAttempts))
            until = entry.lastFailure + delay
            reason = "Too many failed sign-ins for \(what); wait before trying again"
        }
        guard now < until else { return }
        let seconds = Int((until - now + 999) / 1_000)
        throw CloudStoreError.throttled("\(reason) (\(seconds) s)", retryAfter: seconds)
    }
}
