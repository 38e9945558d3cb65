/// What a per-user erasure removes (or, in a dry run, would remove): counts per environment and
/// for the whole container.
public struct UserErasure: Hashable, Sendable {
    /// What goes in one environment.
    public struct Counts: Hashable, Sendable {
        /// Zones of the user's private database, the default zone among them once it held anything.
        public var privateZones = 0
        /// Records of the user's private database, shares included.
        public var privateRecords = 0
        /// Shares the user owns (counted among the private records too).
        public var shares = 0
        /// Shares of other users listing the user as a participant (invited, accepted or removed),
        /// which no longer do.
        public var participations = 0
        /// Public records the user created, deleted.
        public var publicRecordsDeleted = 0
        /// Public records the user created, given to another user (per type, as asked).
        public var publicRecordsReassigned = 0
        /// Records the user created in zones others shared with them, deleted.
        public var sharedRecords = 0
        /// Subscriptions the user held, in every database.
        public var subscriptions = 0
        /// Push tokens bound to the user.
        public var pushTokens = 0
        /// Kept versions (the history and the trash) of the records erased, forgotten.
        public var keptVersions = 0

        /// No counts.
        public init() {}
    }

    /// The user's record name.
    public var userRecordName: String
    /// The user's sign-in name.
    public var name: String
    /// Whether nothing was changed: the counts say what an erasure would remove.
    public var dryRun: Bool
    /// The counts of each environment erased.
    public var environments: [Environment: Counts] = [:]
    /// Sessions the user had open, ended.
    public var sessions = 0
    /// Whether the user's account (their sign-in, profile and discoverability) goes: when every
    /// environment is erased.
    public var accountRemoved = false
    /// Calls of the request log naming the user, whose user id is replaced (at most the first
    /// 10,000 counted in a dry run).
    public var requestLogEntries = 0
    /// What the request log names the user by after the erasure.
    public var anonymousName: String?

    /// An erasure with no counts yet.
    public init(userRecordName: String, name: String, dryRun: Bool) {
        self.userRecordName = userRecordName
        self.name = name
        self.dryRun = dryRun
    }
}
