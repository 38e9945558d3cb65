import Foundation
import Synchronization

/// Slows down password guessing without letting a guesser lock an account's owner out.
///
/// - Per account and client address: after a few failures each further attempt from that
///   address must wait longer (1 s, 2 s, 4 s… up to a minute), and past a limit that address is
///   refused the account for a while.
/// - Per account, from every address: the more failures an account has, the longer an address
///   that failed on it itself waits after its own last failure, up to a minute; never a refusal.
///   An address without failures on the account is not held back by other addresses' failures,
///   so the owner signs in while someone else guesses.
/// - Per client address, over all accounts: delays, then a refusal, as for one account.
///
/// An IPv6 client is its /64 (``client(_:)``), so hopping addresses within it gains nothing.
///
/// Failures are forgotten a quarter of an hour after the last one; a success clears its
/// address's failures on the account. Accounts with many recent failures are reported
/// (``attacks(now:)``) so operators see who is being guessed at.
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
        /// Failures after which sign-in is refused for ``refusal``; `nil` to only ever delay.
        var refuseAfter: Int?
        /// The longest delay between attempts, in milliseconds.
        var maximumDelay: Int64 = 60_000
        /// How long a refusal lasts, and how long failures are remembered, in milliseconds.
        var refusal: Int64 = 15 * 60_000
    }

    private enum Key: Hashable {
        case account(SignInAccount)
        case address(String)
        case pair(SignInAccount, address: String)
    }

    private struct Entry {
        var failures: Int
        var lastFailure: Int64
    }

    private let pairPolicy = Policy(freeAttempts: 5, refuseAfter: 20)
    private let accountPolicy = Policy(freeAttempts: 5, refuseAfter: nil)
    private let addressPolicy = Policy(freeAttempts: 20, refuseAfter: 100)
    private let entries = Mutex<[Key: Entry]>([:])
    /// Past this many remembered keys, forgotten ones are swept out.
    private static let sweepAbove = 100_000
    /// Recent failures from which an account is reported as under attack: more than a forgetful
    /// owner makes.
    static let attackAfter = 10

    /// Refuses an attempt that comes too soon.
    /// - Parameter address: the client's address; attempts without one count as one client.
    /// - Throws: ``CloudStoreError/throttled(_:retryAfter:)`` saying how long to wait.
    func check(account: SignInAccount, address: String?, now: Int64) throws {
        let address = address.map(Self.client)
        do {
            try check(account: account, client: address, now: now)
        } catch {
            refusals.wrappingAdd(1, ordering: .relaxed)
            throw error
        }
    }

    /// Attempts refused so far, for metrics.
    let refusals = Atomic<Int>(0)

    private func check(account: SignInAccount, client address: String?, now: Int64) throws {
        try entries.withLock { entries in
            // Only an address that failed on this account waits for the account's failures.
            if let own = entries[.pair(account, address: address ?? "")], now - own.lastFailure < pairPolicy.refusal {
                try Self.check(own, pairPolicy, now, what: "this account from this address")
                if let all = entries[.account(account)] {
                    try Self.check(Entry(failures: all.failures, lastFailure: own.lastFailure), accountPolicy, now, what: "this account")
                }
            }
            if let address { try Self.check(entries[.address(address)], addressPolicy, now, what: "this address") }
        }
    }

    /// Counts a failed attempt.
    func recordFailure(account: SignInAccount, address: String?, now: Int64) {
        let address = address.map(Self.client)
        entries.withLock { entries in
            if entries.count > Self.sweepAbove {
                entries = entries.filter { now - $0.value.lastFailure < pairPolicy.refusal }
            }
            Self.count(&entries, .account(account), accountPolicy, now)
            Self.count(&entries, .pair(account, address: address ?? ""), pairPolicy, now)
            if let address { Self.count(&entries, .address(address), addressPolicy, now) }
        }
    }

    /// Clears an address's failures on an account after a successful sign-in from it; the
    /// account keeps the failures others made, so an attack stays reported and slowed.
    func recordSuccess(account: SignInAccount, address: String?) {
        let address = address.map(Self.client)
        entries.withLock { entries in
            guard let own = entries.removeValue(forKey: .pair(account, address: address ?? "")) else { return }
            guard var all = entries[.account(account)] else { return }
            all.failures -= own.failures
            entries[.account(account)] = all.failures > 0 ? all : nil
        }
    }

    /// The accounts with at least ``attackAfter`` failures in the last quarter of an hour, the
    /// most failures first.
    func attacks(now: Int64) -> [SignInAttack] {
        entries.withLock { entries in
            var addresses: [SignInAccount: Int] = [:]
            for (key, entry) in entries {
                if case .pair(let account, _) = key, now - entry.lastFailure < pairPolicy.refusal { addresses[account, default: 0] += 1 }
            }
            return entries.compactMap { key, entry -> SignInAttack? in
                guard case .account(let account) = key, entry.failures >= Self.attackAfter, now - entry.lastFailure < accountPolicy.refusal
                else { return nil }
                return SignInAttack(
                    account: account, failures: entry.failures, lastFailure: entry.lastFailure, addresses: addresses[account] ?? 0)
            }
            .sorted { ($0.failures, $0.lastFailure) > ($1.failures, $1.lastFailure) }
        }
    }

    /// The client an address stands for: itself, or an IPv6 address's /64, which one machine
    /// usually holds whole, so hopping between its addresses buys no fresh attempts.
    static func client(_ address: String) -> String {
        var bytes = in6_addr()
        guard address.contains(":"), inet_pton(AF_INET6, address, &bytes) == 1 else { return address }
        let octets = withUnsafeBytes(of: &bytes) { Array($0) }
        // An IPv4 address written as IPv6 (::ffff:a.b.c.d) is one client, not a network.
        if octets.prefix(10).allSatisfy({ $0 == 0 }), octets[10] == 0xff, octets[11] == 0xff { return address }
        let digits = Array("0123456789abcdef")
        return String(octets.prefix(8).flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] }) + "::/64"
    }

    private static func count(_ entries: inout [Key: Entry], _ key: Key, _ policy: Policy, _ now: Int64) {
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
        if let refuseAfter = policy.refuseAfter, entry.failures >= refuseAfter {
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
