/// What a store counted, at one moment, for a metrics endpoint: its writers' groups, its
/// storage (SQLite's write-ahead logs, PostgreSQL's pool), the requests refused at its limits,
/// the notifications it queued and its last backup. Read with ``CloudStore/metrics()``.
public struct StoreMetrics: Sendable {
    /// Write transactions the environments' writers ran (groups of writes committed together).
    public var writeGroups = 0
    /// Writes those groups ran: with ``writeGroups``, their mean size.
    public var writeGroupWrites = 0
    /// The most writes one group ran.
    public var largestWriteGroup = 0
    /// Writes submitted and not yet taken into a group.
    public var writesWaiting = 0
    /// Pages in the SQLite files' write-ahead logs after their last commits; `nil` on PostgreSQL.
    public var logPages: Int?
    /// Checkpoints of the SQLite files' logs so far; `nil` on PostgreSQL.
    public var checkpoints: Int?
    /// Connections of the PostgreSQL pool, open and in use; `nil` on SQLite.
    public var poolConnections: (open: Int, inUse: Int)?
    /// Round trips to PostgreSQL so far; `nil` on SQLite.
    public var roundTrips: Int?
    /// Requests refused at each limit so far.
    public var refusals: [StoreLimit: Int] = [:]
    /// Notifications committed to push tokens' queues so far.
    public var notificationsQueued = 0
    /// When the last backup this process knows of finished, in milliseconds since 1970.
    public var lastBackup: Int64?
}
