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

    /// One environment's transfer in one calendar month.
    private struct Month {
        var start: Int64
        var end: Int64
        var bytes: Int64
    }

    private struct State {
        /// Each environment's current minute, complete (written again at every batch).
        var open: [Key: UsageMinute] = [:]
        var months: [Key: Month] = [:]
    }

    /// Past this many open minutes, those of environments idle for an hour are let go.
    private static let sweepAbove = 10_000
    private let state = Mutex(State())
    private let sampler = Mutex<(@Sendable (Key) -> Int64?)?>(nil)

    /// Sets how the storage an environment holds is measured, once a minute per busy environment.
    func measureStorage(with sampler: @escaping @Sendable (Key) -> Int64?) {
        self.sampler.withLock { $0 = sampler }
    }

    /// Counts a batch of entries; returns the minutes to write, whole.
    func absorb(_ batch: [RequestLogEntry], storage: SQLiteRequestLogStore) throws -> [UsageMinute] {
        var current = state.withLock { $0 }
        var finished: [UsageMinute] = []
        var touched = Set<Key>()
        let sample = sampler.withLock { $0 }
        // The environment of the entries before: consecutive calls mostly share it, and
        // comparing with it costs less than hashing its key for every call.
        var key: Key?
        var open: UsageMinute?
        var month: Month?
        func putBack() {
            guard let key else { return }
            current.open[key] = open
            current.months[key] = month
            touched.insert(key)
        }
        for entry in batch {
            if key?.container != entry.container || key?.environment != entry.environment {
                // Only calls that reached an environment count; a path naming none is noise.
                guard !entry.container.isEmpty, Environment(rawValue: entry.environment) != nil else { continue }
                putBack()
                let next = Key(container: entry.container, environment: entry.environment)
                (key, open, month) = (next, current.open[next], current.months[next])
            }
            guard let key else { continue }
            let minute = entry.time / 60_000
            if open.map({ $0.minute < minute }) ?? true {
                if let known = open { finished.append(known) }
                // After a restart within a minute, that minute goes on from what was written.
                var loaded = try storage.usageMinute(key, minute: minute) ?? UsageMinute(container: key.container, environment: key.environment, minute: minute)
                if loaded.storageBytes == nil { loaded.storageBytes = sample?(key) }
                open = loaded
            }
            open?.add(entry)
            if month.map({ entry.time < $0.start || entry.time >= $0.end }) ?? true {
                month = try Self.month(of: key, at: entry.time, storage: storage)
            }
            month?.bytes += entry.bytesIn + entry.bytesOut
        }
        putBack()
        if current.open.count > Self.sweepAbove, let newest = batch.last?.time {
            current.open = current.open.filter { newest / 60_000 - $0.value.minute < 60 }
            current.months = current.months.filter { current.open[$0.key] != nil }
        }
        state.withLock { $0 = current }
        return finished + touched.compactMap { current.open[$0] }
    }

    /// The bytes an environment's API carried this month, if known without reading the file.
    func transferThisMonth(_ key: Key, now: Int64) -> Int64? {
        state.withLock { state in
            guard let month = state.months[key], now >= month.start, now < month.end else { return nil }
            return month.bytes
        }
    }

    /// Reads an environment's transfer this month from the file and keeps it. Runs on the log's queue.
    func loadMonth(_ key: Key, now: Int64, storage: SQLiteRequestLogStore) throws -> Int64 {
        if let known = transferThisMonth(key, now: now) { return known }
        let month = try Self.month(of: key, at: now, storage: storage)
        state.withLock { $0.months[key] = month }
        return month.bytes
    }

    private static func month(of key: Key, at time: Int64, storage: SQLiteRequestLogStore) throws -> Month {
        let (start, end) = monthBounds(of: time)
        return Month(start: start, end: end, bytes: try storage.transfer(key, fromMinute: start / 60_000, toMinute: end / 60_000))
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
