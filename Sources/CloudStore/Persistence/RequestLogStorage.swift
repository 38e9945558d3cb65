/// Where the request log and the usage counters are kept: a file of this process's own, or a
/// database that several processes write to at once.
protocol RequestLogStorage: Sendable {
    /// Whether other processes write to the same log, so that what this process counted itself
    /// is not the whole of an environment's usage and must be read again now and then.
    var isShared: Bool { get }

    /// Stores `batch` as the log's newest entries, in order, adds `usage` to the stored usage
    /// minutes, and forgets entries from before `forgetBefore` and usage minutes from before
    /// `forgetUsageBefore`, all in one transaction.
    /// - Parameters:
    ///   - batch: The entries, oldest first; their ids are ignored.
    ///   - usage: What the entries add to each environment's minutes: counts and latencies are
    ///     added to those stored, and the storage measured is kept unless one is stored already.
    ///   - forgetBefore: A time in milliseconds, or `nil` to forget no entries.
    ///   - forgetUsageBefore: A time in milliseconds, or `nil` to forget no usage minutes.
    /// - Returns: The ids the entries got, in the batch's order; later entries have larger ids.
    func append(_ batch: [RequestLogEntry], usage: [UsageMinute], forgetBefore: Int64?, forgetUsageBefore: Int64?) throws -> [Int64]

    /// The bytes the entries (and the usage minutes beside them) take in the storage: exact or
    /// an estimate, as each storage tells; what ``forgetOldest(downTo:)`` brings down.
    func storedBytes() throws -> Int64

    /// Forgets the oldest entries until ``storedBytes()`` is at most `bytes` (or no entries are left).
    func forgetOldest(downTo bytes: Int64) throws

    /// The entries `filter` selects, newest first, at most `filter.limit` (kept within 1…10,000).
    func entries(_ filter: RequestLogFilter) throws -> [RequestLogEntry]

    /// Replaces `user` by `replacement` in every entry of `container` that names them: what an
    /// erased user's calls keep of them. How many entries changed.
    func anonymiseUser(_ user: String, in container: String, as replacement: String) throws -> Int

    /// One environment's minutes from `fromMinute` up to (not including) `toMinute`, oldest first.
    func usageMinutes(_ key: UsageMeter.Key, fromMinute: Int64, toMinute: Int64) throws -> [UsageMinute]

    /// The storage last measured for an environment before `minute`, if any was.
    func storageBytes(_ key: UsageMeter.Key, before minute: Int64) throws -> Int64?

    /// Bytes in and out of an environment's API from `fromMinute` up to (not including) `toMinute`.
    func transfer(_ key: UsageMeter.Key, fromMinute: Int64, toMinute: Int64) throws -> Int64
}
