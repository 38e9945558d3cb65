import Foundation
import Synchronization

/// The usage counters of every container environment, kept by the request log's writer from
/// the entries it writes: one row per environment and minute (requests, errors, bytes, a
/// latency histogram, the storage held), and each environment's transfer this month, which the
/// transfer quota is checked against.
///
/// Everything but reading a month's transfer runs on the request log's queue, so the state
/// changes in one place; request threads only read under the lock.
final class UsageMeter: Sendable {
    /// An environment as the log names it.
    struct Key: Hashable, Sendable {
        var container: String
        var environment: String
    }

    /// An environment's minute.
    private struct MinuteKey: Hashable {
        var key: Key
        var minute: Int64
    }

    /// One environment's transfer in one calendar month.
    private struct Month {
        var start: Int64
        var end: Int64
        var bytes: Int64
        /// When the bytes were read from the storage: with other processes writing too, what
        /// they carried since is seen only by reading again.
        var read: ContinuousClock.Instant
    }

    private struct State {
        /// Each environment's newest minute counted, whose storage was measured.
        var minutes: [Key: Int64] = [:]
        /// What the entries counted since the last write that succeeded add to each
        /// environment's minutes: the storage adds them to what it holds, so that the counts of
        /// several processes (or of this one before a restart) add up.
        var unwritten: [MinuteKey: UsageMinute] = [:]
        var months: [Key: Month] = [:]
    }

    /// Past this many environments counted, those idle for an hour are let go.
    private static let sweepAbove = 10_000
    private let state = Mutex(State())
    private let sampler = Mutex<(@Sendable (Key) -> Int64?)?>(nil)

    /// Sets how the storage an environment holds is measured, once a minute per busy environment.
    func measureStorage(with sampler: @escaping @Sendable (Key) -> Int64?) {
        self.sampler.withLock { $0 = sampler }
    }

    /// Counts a batch of entries; returns what they, and the batches before whose write failed,
    /// add to each environment's minutes, ordered by environment and minute (so that two
    /// processes adding to the same rows lock them in the same order). Call ``written()`` once
    /// they are stored.
    func absorb(_ batch: [RequestLogEntry], storage: any RequestLogStorage) throws -> [UsageMinute] {
        var current = state.withLock { $0 }
        let sample = sampler.withLock { $0 }
        // The environment of the entries before: consecutive calls mostly share it, and
        // comparing with it costs less than hashing its key for every call.
        var key: Key?
        var open: UsageMinute?
        var month: Month?
        func putBack() {
            guard let key else { return }
            if let open { current.unwritten[MinuteKey(key: key, minute: open.minute)] = open }
            current.months[key] = month
        }
        for entry in batch {
            if key?.container != entry.container || key?.environment != entry.environment {
                // Only calls that reached an environment count; a path naming none is noise.
                guard !entry.container.isEmpty, Environment(rawValue: entry.environment) != nil else { continue }
                putBack()
                let next = Key(container: entry.container, environment: entry.environment)
                let minute = current.minutes[next]
                (key, month) = (next, current.months[next])
                open =
                    minute.flatMap { current.unwritten[MinuteKey(key: next, minute: $0)] }
                    ?? minute.map { UsageMinute(container: next.container, environment: next.environment, minute: $0) }
            }
            guard let key else { continue }
            let minute = entry.time / 60_000
            // A call a little late, of a minute already passed, counts in the newest one.
            if open.map({ $0.minute < minute }) ?? true {
                if let known = open { current.unwritten[MinuteKey(key: key, minute: known.minute)] = known }
                var next =
                    current.unwritten[MinuteKey(key: key, minute: minute)]
                    ?? UsageMinute(container: key.container, environment: key.environment, minute: minute)
                if current.minutes[key].map({ $0 < minute }) ?? true {
                    current.minutes[key] = minute
                    next.storageBytes = next.storageBytes ?? sample?(key)
                }
                open = next
            }
            open?.add(entry)
            if month.map({ entry.time < $0.start || entry.time >= $0.end }) ?? true {
                month = try Self.month(of: key, at: entry.time, storage: storage)
            }
            month?.bytes += entry.bytesIn + entry.bytesOut
        }
        putBack()
        if current.minutes.count > Self.sweepAbove, let newest = batch.last?.time {
            current.minutes = current.minutes.filter { newest / 60_000 - $0.value < 60 }
            current.months = current.months.filter { current.minutes[$0.key] != nil }
        }
        state.withLock { $0 = current }
        return current.unwritten.values.sorted {
            ($0.container, $0.environment, $0.minute) < ($1.container, $1.environment, $1.minute)
        }
    }

    /// Forgets the counts ``absorb(_:storage:)`` returned, now that they are stored.
    func written() {
        state.withLock { $0.unwritten = [:] }
    }

    /// The bytes an environment's API carried this month, if known without reading the storage.
    func transferThisMonth(_ key: Key, now: Int64) -> Int64? {
        state.withLock { state in
            guard let month = state.months[key], now >= month.start, now < month.end else { return nil }
            return month.bytes
        }
    }

    /// The bytes an environment's API carried this month as last known, and whether they were
    /// read from the storage longer than `maximumAge` ago. A stale answer is given once per
    /// `maximumAge`: its caller is the one to read them again.
    func transferThisMonth(_ key: Key, now: Int64, refreshingAfter maximumAge: Duration) -> (bytes: Int64, stale: Bool)? {
        state.withLock { state in
            guard var month = state.months[key], now >= month.start, now < month.end else { return nil }
            let reading = ContinuousClock.now
            guard month.read + maximumAge < reading else { return (month.bytes, false) }
            month.read = reading
            state.months[key] = month
            return (month.bytes, true)
        }
    }

    /// Reads an environment's transfer this month from the storage and keeps it; with `again`
    /// false, only when it is not known. Runs on the log's queue.
    func loadMonth(_ key: Key, now: Int64, storage: any RequestLogStorage, again: Bool = false) throws -> Int64 {
        if !again, let known = transferThisMonth(key, now: now) { return known }
        let month = try Self.month(of: key, at: now, storage: storage)
        state.withLock { $0.months[key] = month }
        return month.bytes
    }

    private static func month(of key: Key, at time: Int64, storage: any RequestLogStorage) throws -> Month {
        let (start, end) = monthBounds(of: time)
        let read = ContinuousClock.now
        return Month(
            start: start, end: end, bytes: try storage.transfer(key, fromMinute: start / 60_000, toMinute: end / 60_000), read: read)
    }

    /// The calendar month (UTC) holding `time`: its first and its last-plus-one millisecond.
    static func monthBounds(of time: Int64) -> (start: Int64, end: Int64) {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? calendar.timeZone
        let date = Date(timeIntervalSince1970: Double(time) / 1000)
        let start = calendar.date(from: calendar.dateComponents([.year, .month], from: date)) ?? date
        let end = calendar.date(byAdding: .month, value: 1, to: start) ?? date
        return (Int64(start.timeIntervalSince1970 * 1000), Int64(end.timeIntervalSince1970 * 1000))
    }
}
