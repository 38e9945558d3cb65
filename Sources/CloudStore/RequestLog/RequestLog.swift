import Dispatch
import Synchronization

/// Every API call, kept apart from the records (in a file of its own, or in a database that
/// several processes share) and written off the request path: ``record(_:)``
/// only appends to a buffer of the calling thread's, which a background queue gathers and
/// writes in batches (at most every ``flushInterval``), forgetting entries older than the
/// retention and, past its size bound, the oldest entries as it goes (``RequestLogLimits``).
/// A batch that cannot be written (a full disk) is left out and counted, never failing a call.
/// Listeners (the console's live tail) hear each entry as its batch is
/// written. The same batches keep the usage counters (``UsageMeter``).
public final class RequestLog: Sendable {
    /// How long after the first buffered entry a batch is written.
    public static let flushInterval: DispatchTimeInterval = .milliseconds(200)
    /// Entries held in memory at most; past it, new entries are counted as dropped rather than
    /// slowing requests down.
    public static let maximumBuffered = 100_000
    /// How long the usage counters are kept, in milliseconds: a month's transfer and a week's
    /// charts need no more than 35 days.
    public static let usageRetention: Int64 = 35 * 24 * 60 * 60 * 1000

    /// How long a month's transfer read from a shared storage is trusted by default: other
    /// processes' calls count against the transfer quota at most this long after they are written.
    static let sharedTransferLifetime: Duration = .seconds(5)

    private let opener: @Sendable () throws -> any RequestLogStorage
    private let retention: Int64
    private let limits: RequestLogLimits
    private let clock: @Sendable () -> Int64
    private let queue = DispatchQueue(label: "cumulus.request-log")
    /// Buffers by thread: one buffer under one lock had every request thread wait for the others
    /// (and sleep, and be woken), which cost the API more than writing the log does.
    private let buffers = (0..<8).map { _ in Buffer() }
    private let flushScheduled = Atomic(false)
    private let dropped = Atomic(0)
    /// Entries left out because their batch could not be written.
    private let unwritten = Atomic(0)
    /// Successful reads left out by sampling.
    private let sampledOut = Atomic(0)
    /// Reads of the usage minutes so far: what a page's cost in reads is checked by.
    private let usageMinuteReads = Atomic(0)
    private let state = Mutex(State())
    private let storage = Mutex<(any RequestLogStorage)?>(nil)
    /// Whether other processes write to the same storage.
    private let isShared: Bool
    /// How long a month's transfer read from a shared storage is trusted.
    private let transferLifetime: Duration
    /// The usage counters these entries keep.
    let usage = UsageMeter()

    private final class Buffer: Sendable {
        /// Entries with the monotonic time they were recorded at, in nanoseconds: what orders
        /// the buffers' entries among themselves, finer than the entries' milliseconds, which
        /// calls one after another often share.
        let entries = Mutex<[(recorded: UInt64, entry: RequestLogEntry)]>([])
    }

    private struct State {
        var lastForget: Int64 = 0
        var lastSizeCheck: Int64 = 0
        var lastWarning: Int64 = 0
        /// The second sampled reads are counted in, and how many were kept in it.
        var sampleSecond: Int64 = .min
        var sampledReads = 0
        var listeners: [Int: @Sendable (RequestLogEntry) -> Bool] = [:]
        var nextListener = 0
    }

    /// A log of this process alone in the storage `opener` opens when the log is first written or read.
    init(
        opening opener: @escaping @Sendable () throws -> any RequestLogStorage, retention: Int64,
        limits: RequestLogLimits = RequestLogLimits(),
        clock: @escaping @Sendable () -> Int64
    ) {
        self.opener = opener
        self.limits = limits
        isShared = false
        transferLifetime = Self.sharedTransferLifetime
        self.retention = retention
        self.clock = clock
    }

    /// A log in `storage`, keeping entries for `retention` milliseconds as `clock` tells the time.
    /// - Parameter transferLifetime: How long a month's transfer read from a shared storage is trusted.
    init(
        storage: any RequestLogStorage, retention: Int64, limits: RequestLogLimits = RequestLogLimits(),
        transferLifetime: Duration = sharedTransferLifetime, clock: @escaping @Sendable () -> Int64
    ) {
        opener = { storage }
        self.limits = limits
        isShared = storage.isShared
        self.transferLifetime = transferLifetime
        self.storage.withLock { $0 = storage }
        self.retention = retention
        self.clock = clock
    }

    /// Entries dropped because their thread's buffer was full.
    public var droppedCount: Int { dropped.load(ordering: .relaxed) }

    /// Entries left out because their batch could not be written (a full disk).
    public var unwrittenCount: Int { unwritten.load(ordering: .relaxed) }

    /// Successful reads left out by sampling (``RequestLogLimits/sampledReadsPerSecond``).
    public var sampledOutCount: Int { sampledOut.load(ordering: .relaxed) }

    /// How many times the usage minutes were read (``usageMinutes(_:_:fromMinute:toMinute:)``).
    var usageMinuteReadCount: Int { usageMinuteReads.load(ordering: .relaxed) }

    /// Notes one call. Never blocks on the file.
    public func record(_ entry: RequestLogEntry) {
        let perBuffer = Self.maximumBuffered / buffers.count
        let buffer = buffers[ThreadShard.index(of: buffers.count)]
        let kept = buffer.entries.withLock { buffer -> Bool in
            guard buffer.count < perBuffer else { return false }
            // Read under the lock, so that each buffer's entries are in the order of their times.
            buffer.append((DispatchTime.now().uptimeNanoseconds, entry))
            return true
        }
        guard kept else {
            dropped.add(1, ordering: .relaxed)
            return
        }
        // Whoever finds no batch pending schedules one; the others only read the flag.
        if !flushScheduled.load(ordering: .acquiring),
            flushScheduled.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        {
            queue.asyncAfter(deadline: .now() + Self.flushInterval) { [weak self] in try? self?.write() }
        }
    }

    /// Takes every thread's buffered entries in the order they were recorded: merged by the
    /// monotonic time each was recorded at, each buffer being in that order already.
    private func takeBuffered() -> [RequestLogEntry] {
        // Cleared before taking, so that an entry recorded meanwhile schedules a batch of its own.
        flushScheduled.store(false, ordering: .releasing)
        let taken = buffers.map { buffer in
            buffer.entries.withLock { entries -> [(recorded: UInt64, entry: RequestLogEntry)] in
                defer { entries = [] }
                return entries
            }
        }.filter { !$0.isEmpty }
        guard taken.count > 1 else { return taken.first?.map(\.entry) ?? [] }
        var merged: [RequestLogEntry] = []
        merged.reserveCapacity(taken.reduce(0) { $0 + $1.count })
        var next = [Int](repeating: 0, count: taken.count)
        while true {
            var earliest: Int?
            for source in taken.indices where next[source] < taken[source].count {
                if let best = earliest, taken[best][next[best]].recorded <= taken[source][next[source]].recorded { continue }
                earliest = source
            }
            guard let source = earliest else { return merged }
            merged.append(taken[source][next[source]].entry)
            next[source] += 1
        }
    }

    /// Writes what is buffered now and waits for it: what tests and readers that must see the
    /// latest calls use.
    public func flush() throws {
        try queue.sync { try write() }
    }

    /// The entries `filter` selects, newest first, including those still buffered and leaving
    /// out those older than the retention that a block still holds.
    public func entries(_ filter: RequestLogFilter) throws -> [RequestLogEntry] {
        try flush()
        var filter = filter
        filter.from = max(filter.from ?? .min, clock() - retention)
        return try open().entries(filter)
    }

    /// Replaces `user` by `replacement` in every call of `container` the log holds (those
    /// still buffered written first): how many calls named them.
    func anonymiseUser(_ user: String, in container: ContainerIdentifier, as replacement: String) throws -> Int {
        try flush()
        return try queue.sync { try open().anonymiseUser(user, in: container.rawValue, as: replacement) }
    }

    /// The bytes of requests and answers an environment's API carried this calendar month
    /// (UTC), as of the last written batch; with a shared storage, other processes' calls as of
    /// at most the transfer lifetime (``sharedTransferLifetime`` unless set) ago.
    func transferThisMonth(_ container: ContainerIdentifier, _ environment: Environment) throws -> Int64 {
        let key = UsageMeter.Key(container: container.rawValue, environment: environment.rawValue)
        let now = clock()
        if !isShared, let known = usage.transferThisMonth(key, now: now) { return known }
        if isShared, let known = usage.transferThisMonth(key, now: now, refreshingAfter: transferLifetime) {
            // Read again off the request path: the quota check goes on with what is known.
            if known.stale {
                queue.async { [weak self] in
                    guard let self else { return }
                    _ = try? usage.loadMonth(key, now: clock(), storage: open(), again: true)
                }
            }
            return known.bytes
        }
        return try queue.sync { try usage.loadMonth(key, now: now, storage: open()) }
    }

    /// An environment's usage minutes from `fromMinute` up to `toMinute`, including calls
    /// still buffered, and the storage last measured before them.
    func usageMinutes(
        _ container: ContainerIdentifier, _ environment: Environment, fromMinute: Int64, toMinute: Int64
    ) throws -> (minutes: [UsageMinute], storageBefore: Int64?) {
        try flush()
        usageMinuteReads.add(1, ordering: .relaxed)
        let key = UsageMeter.Key(container: container.rawValue, environment: environment.rawValue)
        let store = try open()
        return (try store.usageMinutes(key, fromMinute: fromMinute, toMinute: toMinute), try store.storageBytes(key, before: fromMinute))
    }

    /// Calls `listener` with each entry as it is written, until it returns false or the
    /// returned cancel function is called. It hears this process's calls only, even when the
    /// storage is shared: others are seen by reading ``entries(_:)``.
    public func listen(_ listener: @escaping @Sendable (RequestLogEntry) -> Bool) -> @Sendable () -> Void {
        let id = state.withLock { state -> Int in
            state.nextListener += 1
            state.listeners[state.nextListener] = listener
            return state.nextListener
        }
        return { [weak self] in _ = self?.state.withLock { $0.listeners.removeValue(forKey: id) } }
    }

    /// Runs on the queue.
    private func write() throws {
        let now = clock()
        let batch = takeBuffered()
        let (listeners, forget, measure) = state.withLock { state -> ([(Int, @Sendable (RequestLogEntry) -> Bool)], Bool, Bool) in
            // The retention is applied at most once a minute: deleting is the costly part.
            let forget = now - state.lastForget > 60_000
            if forget { state.lastForget = now }
            let measure = limits.maximumBytes != nil && now - state.lastSizeCheck >= RequestLogLimits.sizeCheckInterval
            if measure { state.lastSizeCheck = now }
            return (Array(state.listeners), forget, measure)
        }
        guard !batch.isEmpty else { return }
        let kept = sampled(batch)
        let store: any RequestLogStorage
        let ids: [Int64]
        do {
            // Opening the log makes its files: on a full disk that fails like a write.
            store = try open()
            // Every call counts in the usage, sampled out or not: the transfer quota reads it.
            let minutes = try usage.absorb(batch, storage: store)
            ids = try store.append(
                kept, usage: minutes, forgetBefore: forget ? now - retention : nil,
                forgetUsageBefore: forget ? now - Self.usageRetention : nil)
            usage.written()
        } catch {
            // A full disk (or any failure of the log's storage) never reaches the API: the batch
            // is left out and counted, the usage it adds is kept for the next write, and the
            // next batch is written as usual once there is room again.
            unwritten.add(kept.count, ordering: .relaxed)
            warn(now, error)
            return
        }
        if measure { bound(store, now) }
        guard !listeners.isEmpty else { return }
        // Listeners hear entries as stored, with their ids.
        let stored = zip(kept, ids).map { entry, id in
            var entry = entry
            entry.id = id
            return entry
        }
        for (id, listener) in listeners {
            for entry in stored where !listener(entry) {
                _ = state.withLock { $0.listeners.removeValue(forKey: id) }
                break
            }
        }
    }

    /// Forgets the oldest entries when the log holds more than its maximum bytes, down to a
    /// tenth under it. Runs on the queue, off the request path; a failure is told as a write's is.
    private func bound(_ store: any RequestLogStorage, _ now: Int64) {
        guard let maximum = limits.maximumBytes, let target = limits.cutBackBytes else { return }
        do {
            if try store.storedBytes() > maximum { try store.forgetOldest(downTo: target) }
        } catch {
            warn(now, error)
        }
    }

    /// `batch` without the successful reads past the sampled rate of their second. Runs on the queue.
    private func sampled(_ batch: [RequestLogEntry]) -> [RequestLogEntry] {
        guard let rate = limits.sampledReadsPerSecond else { return batch }
        let kept = state.withLock { state in
            batch.filter { entry in
                guard entry.isSuccessfulRead else { return true }
                let second = entry.time / 1000
                if second != state.sampleSecond { (state.sampleSecond, state.sampledReads) = (second, 0) }
                state.sampledReads += 1
                return state.sampledReads <= rate
            }
        }
        if kept.count < batch.count { sampledOut.add(batch.count - kept.count, ordering: .relaxed) }
        return kept
    }

    /// Tells ``RequestLogLimits/warning`` of a failed write, at most once a warning interval.
    private func warn(_ now: Int64, _ error: any Error) {
        let due = state.withLock { state in
            guard now - state.lastWarning >= RequestLogLimits.warningInterval else { return false }
            state.lastWarning = now
            return true
        }
        guard due, let warning = limits.warning else { return }
        warning("the request log could not write its calls and left them out (\(unwrittenCount) so far): \(error)")
    }

    /// The storage the log writes to, opened if it is not yet: what a test measures or fills.
    func openedStorage() throws -> any RequestLogStorage { try open() }

    private func open() throws -> any RequestLogStorage {
        try storage.withLock { storage in
            if let storage { return storage }
            let opened = try opener()
            storage = opened
            return opened
        }
    }
}
