/// What the request log keeps besides its age bound: at most so many bytes, and at most so many
/// successful reads a second; and whom it tells when a batch could not be written.
public struct RequestLogLimits: Sendable {
    /// The most bytes the log's entries may take; the oldest are forgotten first past it. `nil`
    /// bounds the log by age alone.
    public var maximumBytes: Int64?
    /// Successful reads kept per second at most; `nil` keeps every call. Failures and writes
    /// are always kept, and every call counts in the usage counters whether kept or not.
    public var sampledReadsPerSecond: Int?
    /// Told, at most once a minute, that batches could not be written (a full disk) and were
    /// left out; the API answers on either way.
    public var warning: (@Sendable (String) -> Void)?

    /// Limits as given; none by default.
    public init(maximumBytes: Int64? = nil, sampledReadsPerSecond: Int? = nil, warning: (@Sendable (String) -> Void)? = nil) {
        self.maximumBytes = maximumBytes
        self.sampledReadsPerSecond = sampledReadsPerSecond
        self.warning = warning
    }

    /// How full, past the maximum, the log is cut back to: a tenth under it, so that it is not
    /// cut again with every batch.
    var cutBackBytes: Int64? { maximumBytes.map { $0 - $0 / 10 } }

    /// How often, in milliseconds, the log's size is measured: often enough that a busy server
    /// (some 2 MB of calls a second) passes the maximum by little, seldom enough to cost nothing.
    static let sizeCheckInterval: Int64 = 1_000

    /// How often, in milliseconds, a failing write is told of.
    static let warningInterval: Int64 = 60_000
}

extension RequestLogEntry {
    /// The operations that change nothing: those whose successful calls sampling may leave out.
    static let readOperations: Set<String> = [
        "records/lookup", "records/query", "records/changes", "changes/database", "changes/zone", "zones/list", "zones/lookup",
        "zones/changes", "subscriptions/list", "subscriptions/lookup", "users/caller", "users/current", "users/discover",
        "users/lookup/contacts", "users/lookup/email", "users/lookup/id", "assets/file/download",
    ]

    /// Whether the call read and succeeded wholly: what sampling may leave out of the log.
    var isSuccessfulRead: Bool { !isFailure && Self.readOperations.contains(operation) }
}
