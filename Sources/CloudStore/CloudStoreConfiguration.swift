import Foundation

/// How a ``CloudStore`` is set up: where its files live and how durable its commits are.
public struct CloudStoreConfiguration: Sendable {
    /// The data directory; see the README's "Data directory" section for its layout.
    public var dataDirectory: String
    /// Durability of commits. `.normal` survives a process crash; `.full` also power loss.
    public var synchronous: SynchronousMode
    /// Where the databases are: SQLite files in the data directory (the default), or a
    /// PostgreSQL database several processes share.
    public var database = DatabaseLocation.dataDirectory
    #if CUMULUS_NEGATIVE_CONTROLS
        /// On PostgreSQL, numbers changes from a sequence as they are inserted, with no lock: the
        /// scheme that loses commits to readers of the change feed. Only for the test showing that
        /// the end-to-end checker catches skipped commits; never for a store anyone relies on, so
        /// only debug builds have it.
        public var unsafeNaiveChangeNumbering = false
    #endif
    /// The current time in milliseconds since 1970; replaceable so tests can control it.
    public var clock: @Sendable () -> Int64
    /// How long a web sign-in session lives without being used, in milliseconds (CloudKit: 30
    /// minutes). Any use of any of its web auth tokens starts the time again.
    public var webAuthTokenLifetime: Int64 = 30 * 60 * 1000
    /// The same for users who chose "keep me signed in" (CloudKit: two weeks).
    public var keepSignedInLifetime: Int64 = 14 * 24 * 60 * 60 * 1000
    /// How long a session lives at most, however much it is used, in milliseconds (30 days).
    public var sessionMaximumAge: Int64 = 30 * 24 * 60 * 60 * 1000
    /// How many bytes of records (as the 1 MB record limit counts them) one query page holds at
    /// most, whatever its `resultsLimit`: past it, the page ends with a continuation marker for
    /// the rest. A page always holds at least one record.
    public var maximumQueryPageBytes = 8 * 1024 * 1024
    /// How passwords are hashed.
    public var passwordHasher = PasswordHasher()
    /// Threads that hash passwords, apart from those serving requests. One by default: a hash
    /// takes tens of milliseconds of a core on purpose.
    public var passwordHashingThreads = max(1, ProcessInfo.processInfo.activeProcessorCount / 2)
    /// Password checks that may wait for those threads; more are refused with TRY_AGAIN_LATER.
    public var passwordHashingQueue = 16
    /// The fewest characters a password may have.
    public static let minimumPasswordLength = 8
    /// The fewest characters an operator's password may have.
    public static let minimumOperatorPasswordLength = 10
    /// How long a console session lives without being used, in milliseconds (one hour).
    public var operatorSessionIdleLifetime: Int64 = 60 * 60 * 1000
    /// How long a console session lives at most, in milliseconds (12 hours).
    public var operatorSessionMaximumAge: Int64 = 12 * 60 * 60 * 1000
    /// How long the request log keeps an API call, in milliseconds (7 days).
    public var requestLogRetention: Int64 = 7 * 24 * 60 * 60 * 1000
    /// How many bytes the request log's entries may take at most (1 GiB), the oldest forgotten
    /// first past it; `nil` bounds the log by age alone. A gigabyte holds about 30 million calls
    /// (some 35 bytes each), days of a busy server's traffic, and is small beside the records.
    public var requestLogMaximumBytes: Int64? = 1 << 30
    /// Successful reads the request log keeps per second at most; those above the rate are left
    /// out (failures and writes are always kept). `nil` keeps every call.
    public var requestLogSampledReadsPerSecond: Int?
    /// Told, at most once a minute, when the request log could not write a batch (a full disk)
    /// and left it out: the API goes on answering either way.
    public var requestLogWarning: (@Sendable (String) -> Void)?
    /// How long the audit trail keeps an operator action, in milliseconds (400 days): its own
    /// retention, longer than the request log's, so that a year's actions can be looked back on.
    public var auditRetention: Int64 = 400 * 24 * 60 * 60 * 1000
    /// How long change feeds keep the tombstones of deleted records and zones, in milliseconds
    /// (30 days). A sync token from before a tombstone forgotten since is refused with
    /// CHANGE_TOKEN_EXPIRED, so that its holder fetches everything again rather than keep a
    /// deleted record.
    public var tombstoneRetention: Int64 = 30 * 24 * 60 * 60 * 1000
    /// How long an environment keeps the record versions changes replaced, and deleted records
    /// and zones in its trash, in milliseconds (30 days), unless the environment sets its own.
    public var historyRetention: Int64 = 30 * 24 * 60 * 60 * 1000
    /// How long a notification waits in its push token's queue for a poll to take it, in
    /// milliseconds (one day).
    public var notificationLifetime: Int64 = 24 * 60 * 60 * 1000
    /// Where asset blobs' bytes are kept: files in the data directory unless another directory
    /// or an S3-compatible bucket is chosen.
    public var assetStorage = AssetStorage.dataDirectory
    /// Where the server keeps the backups it takes, how often and how many; `nil`: none.
    public var backups: BackupSchedule?
    /// The largest asset file, in bytes (50 MB, CloudKit's limit); larger uploads are refused
    /// with QUOTA_EXCEEDED.
    public var maximumAssetBytes = 50 * 1024 * 1024
    /// How long an upload URL of `assets/upload` stays valid, in milliseconds (15 minutes, as CloudKit's).
    public var assetUploadLifetime: Int64 = 15 * 60 * 1000
    /// How long the receipt of an upload may be saved into a record, in milliseconds (one day);
    /// a blob no record took by then is collected.
    public var assetReceiptLifetime: Int64 = 24 * 60 * 60 * 1000
    /// How long a `downloadURL` stays valid, in milliseconds (one day); fetching the record again
    /// gives a new one.
    public var assetDownloadLifetime: Int64 = 24 * 60 * 60 * 1000
    /// Push tokens no user holds that a container's environment keeps at most; `tokens/create`
    /// by the world beyond that is refused with QUOTA_EXCEEDED.
    public var maximumUnboundPushTokens = 100_000
    /// How long a push token no user holds lives, in milliseconds (12 hours, the courier's ttl).
    public var unboundPushTokenLifetime: Int64 = 12 * 60 * 60 * 1000
    /// Push tokens one user holds at most in a container's environment; registering one more
    /// lets the oldest go, so that no user multiplies the notifications a save hands out.
    public var maximumPushTokensPerUser = 20
    /// How long a push token a user holds lives unused (no courier poll, no registration), in
    /// milliseconds (30 days); after that it delivers nothing and is gone.
    public var boundPushTokenIdleLifetime: Int64 = 30 * 24 * 60 * 60 * 1000

    /// On PostgreSQL, how often this process tells the others sharing the database that it is
    /// alive, in milliseconds (5 s). Each process admits its share of every environment's
    /// request rate and burst — divided by the processes whose last beat is less than three
    /// intervals old — so that together they admit the rate an operator set. `nil` for a
    /// process that serves no requests (a command), so that it never takes a share.
    public var heartbeatInterval: Int64? = 5_000

    /// Creates a configuration.
    public init(
        dataDirectory: String, synchronous: SynchronousMode = .normal,
        clock: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    ) {
        self.dataDirectory = dataDirectory
        self.synchronous = synchronous
        self.clock = clock
    }
}
