/// The storage of one container environment: its schema, zones, records and change logs.
/// Every read runs on one snapshot; every write is one atomic transaction.
protocol EnvironmentStorage: Sendable {
    /// Runs `body` against a consistent snapshot.
    func read<T: Sendable>(_ body: (any EnvironmentReader) throws -> T) throws -> T
    /// Runs `body` in one transaction; nothing it wrote remains if it throws.
    func write<T: Sendable>(_ body: (any EnvironmentWriter) throws -> T) throws -> T
    /// Hands `body` to the writer and returns at once: `completion` gets what it returned, or
    /// what it or the commit threw, once its transaction has ended. No thread waits meanwhile.
    /// `completion` runs on the writer's thread, holding up the next group: keep it short.
    func write<T: Sendable>(
        _ body: @escaping @Sendable (any EnvironmentWriter) throws -> T, completion: @escaping @Sendable (Result<T, any Error>) -> Void)
    /// How the environment's writer has grouped its jobs so far.
    var writeStatistics: WriteStatistics { get }
    /// What the environment's own storage counts (its file's write-ahead log), for metrics.
    var storageStatistics: StorageStatistics { get }
    /// Runs `body` alone in a transaction of its own: for changes to the schema's indexes.
    func writeSchema<T: Sendable>(_ body: (any EnvironmentWriter) throws -> T) throws -> T
    /// The schema as committed now: read before a request is decoded, so kept from the last
    /// read while no process has changed it, without a transaction of its own.
    func currentSchema() throws -> Schema
    /// The audit entries this environment's transactions wrote that wait to be moved into the
    /// catalog's audit trail, oldest first; none where they reach the trail in the change's own
    /// transaction.
    func auditOutbox() throws -> [AuditOutboxEntry]
    /// Removes moved entries from the outbox.
    func removeFromAuditOutbox(_ ids: [Int64]) throws
    /// Stops trusting the cached schema: another process changed it, or may have.
    func forgetSchema()
}

/// What the domain reads from an environment's storage.
protocol EnvironmentReader {
    /// The environment's schema.
    func schema() throws -> Schema
    /// An opaque value that changes when the store is restored or reset, so that old tokens
    /// can be recognised.
    func incarnation() throws -> String
    /// The zone called `name` in `database`, if it was created.
    func zone(named name: String, in database: DatabaseID) throws -> StoredZone?
    /// Every created zone of `database`.
    func zones(in database: DatabaseID) throws -> [StoredZone]
    /// The record called `name` in `zone`.
    func record(named name: String, in zone: StoredZone) throws -> StoredRecord?
    /// Runs a validated query.
    func query(_ plan: QueryPlan) throws -> [QueryRow]
    /// The sequence of the zone's latest change; 0 for none.
    func lastChangeSequence(in zone: StoredZone) throws -> Int64
    /// The zone's change log after `sequence`, oldest first.
    func changes(in zone: StoredZone, after sequence: Int64, limit: Int) throws -> [ChangeEntry]
    /// The zone's change log entries `filter` keeps, at most `limit`: the oldest of them, or the
    /// newest, newest first, as the filter asks.
    func changes(in zone: StoredZone, matching filter: ChangeLogFilter, limit: Int) throws -> [ChangeEntry]
    /// The zone's change log after `sequence`, oldest first, each entry with its record as it is
    /// now (`nil` when it is gone) and whether a later entry of the log changed the same record
    /// (`superseded`): one statement for a whole page of a change feed.
    /// With `through`, only entries up to that sequence, newest first.
    func changesWithRecords(in zone: StoredZone, after sequence: Int64, through: Int64?, limit: Int) throws
        -> [(entry: ChangeEntry, current: StoredRecord?, superseded: Bool)]
    /// The newest tombstone of the zone's log forgotten after the retention: a token before it
    /// may have missed a deletion. 0 when none was.
    func changeHorizon(in zone: StoredZone) throws -> Int64
    /// The sequence of the latest entry of `database`'s zone log; 0 for none.
    func lastZoneLogSequence(in database: DatabaseID) throws -> Int64
    /// The zones of `database` created, changed or deleted after `sequence`, each once, oldest first.
    func zoneLog(in database: DatabaseID, after sequence: Int64, limit: Int) throws -> [ZoneLogEntry]
    /// The newest zone tombstone of `database` forgotten after the retention; 0 when none was.
    func zoneLogHorizon(in database: DatabaseID) throws -> Int64
    /// Every subscription of `database`, of every subscriber, in the order they were created.
    func subscriptions(in database: DatabaseID) throws -> [(user: String, subscription: Subscription)]
    /// The subscriptions `user` holds in `database`, by identifier.
    func subscriptions(of user: String, in database: DatabaseID) throws -> [Subscription]
    /// Every subscription of the environment, in every database, with its subscriber.
    func allSubscriptions() throws -> [(database: DatabaseID, user: String, subscription: Subscription)]
    /// When each subscription of the environment that ever fired last did, and how many
    /// notifications it queued; subscriptions that never fired are not listed.
    func subscriptionFirings() throws -> [SubscriptionFiring]
    /// Up to `limit` notifications of the token's queue not handed to it and not expired at
    /// `now`, oldest first: what its next polls take, in order.
    func pendingNotifications(for queue: PushTokenQueue, now: Int64, limit: Int) throws -> [StoredNotification]
    /// The oldest notification of the token's queue not handed to it and not expired at `now`,
    /// with its storage key.
    func oldestNotification(for queue: PushTokenQueue, now: Int64) throws -> StoredNotification?
    /// How many notifications of the token's queue wait for it at `now`.
    func queuedNotificationCount(for queue: PushTokenQueue, now: Int64) throws -> Int
    /// How many notification rows are queued, each once for its subscriber, expired or not.
    func queuedNotificationRowCount() throws -> Int
    /// Where the token's queue starts: every entry before this key was handed to it; `nil`
    /// before its first claim.
    func notificationCursor(of token: String) throws -> Int64?
    /// The notifications queued for `user` by the transaction that committed at `time`, queued
    /// still or removed at their expiry (kept as ``NotificationTrail`` for
    /// ``CloudStore/notificationOutcomeRetention``), each with the tokens it was handed to.
    func notificationTrails(of user: String, createdAt time: Int64) throws -> [NotificationTrail]
    /// The stored blob with this content hash.
    func assetBlob(_ sha: String) throws -> AssetBlob?
    /// Up to `limit` records of `zone` in record-name order, after `name` when given, only of
    /// `recordType` when given, only in the hierarchies under `roots` (the roots and every record
    /// below them) when given: a listing that needs no index of the schema's.
    func records(in zone: StoredZone, ofType recordType: String?, withinTrees roots: [String]?, after name: String?, limit: Int) throws
        -> [StoredRecord]
    /// Names of the records of `zone` holding a reference with `action` to `recordName`.
    func referrers(to recordName: String, in zone: StoredZone, action: Reference.Action) throws -> [String]
    /// The shares of a zone, with their participants, by name.
    func shares(in zone: StoredZone) throws -> [Share]
    /// The share a short GUID names, and its zone.
    func share(shortGUID: String) throws -> (share: Share, zone: StoredZone)?
    /// The zones of other users' databases shared with `user`, who accepted and was not removed.
    func zonesShared(with user: String) throws -> [StoredZone]
    /// Every share of the environment, by owner, zone and name.
    func allShares() throws -> [Share]
    /// The custom security roles `user` holds.
    func roles(of user: String) throws -> Set<String>
    /// Every user holding a custom role, with the roles held.
    func roleAssignments() throws -> [String: Set<String>]
    /// Records and bytes of every zone that holds any, in every database.
    func zoneStats() throws -> [ZoneStats]
    /// Records of each type in the hierarchies under `roots` in `zone` (the roots and every
    /// record below them), by type name, and their bytes.
    func recordStats(in zone: StoredZone, withinTrees roots: [String]) throws -> (counts: [String: Int64], bytes: Int64)
    /// Records of each type in `zones` (every zone of the environment when `nil`), by type name.
    func recordCounts(in zones: [StoredZone]?) throws -> [String: Int64]
    /// Zones created in any database, default zones not counted.
    func createdZoneCount() throws -> Int
    /// Up to `limit` kept versions of records `filter` keeps, in the order it asks.
    func versions(matching filter: VersionFilter, limit: Int) throws -> [RecordVersion]
    /// The kept version `id`.
    func version(id: Int64) throws -> RecordVersion?
    /// The deleted zones kept in the trash, of `database` (of every database when `nil`), newest first.
    func trashedZones(in database: DatabaseID?) throws -> [TrashedZone]
    /// Bytes of the record versions the history keeps.
    func historyBytes() throws -> Int64
    /// How long the environment keeps replaced versions, in milliseconds, when set for it.
    func historyRetention() throws -> Int64?
}

/// What the domain writes to an environment's storage, inside one transaction.
protocol EnvironmentWriter: EnvironmentReader {
    /// Bytes of records the environment holds, this transaction's changes included.
    func storedBytes() throws -> Int64
    /// Bytes of records this transaction added so far (negative when it freed more).
    var storedBytesChange: Int64 { get }
    /// Runs `body` so that, if it throws, only what it wrote is undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T
    /// Locks the existing records of `zone` among `names` until the transaction ends, in one
    /// order every writer takes them in, so that two batches over the same records never wait
    /// on each other in a cycle; nothing to do where one writer does all the writing.
    func lockRecords(named names: [String], in zone: StoredZone) throws
    /// Creates a zone.
    func createZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone
    /// Deletes a zone with its records and change log, leaving its tombstone in the database's log.
    func deleteZone(_ zone: StoredZone, at time: Int64) throws
    /// Creates a record type or brings it to `definition`: new fields, changed indexes.
    func saveRecordType(_ definition: RecordTypeDefinition) throws
    /// Removes a field from a record type: its indexes and projections, then the field. The
    /// values records hold in it are the caller's to remove first.
    func removeField(named name: String, from recordType: String) throws
    /// Removes a record type with its fields, grants and tables. Its records are the caller's
    /// to delete first.
    func removeRecordType(named name: String) throws
    /// Replaces the whole schema with `schema`: roles, types, fields, indexes and grants.
    /// Types and fields absent from `schema` keep their data but lose their indexes.
    func replaceSchema(_ schema: Schema) throws
    /// Stores a new record; `nil` when the zone already holds a record of that name, in which
    /// case nothing was written.
    func insert(_ record: Record, in zone: StoredZone) throws -> StoredRecord?
    /// Overwrites a stored record with `record` (same name and type).
    func update(_ stored: StoredRecord, to record: Record, in zone: StoredZone) throws -> StoredRecord
    /// Removes a stored record.
    func delete(_ stored: StoredRecord, in zone: StoredZone) throws
    /// Appends to the zone's change log, at the zone's next sequence: the store numbers the
    /// entries (`entry.sequence` is not read), so that with writers in several processes the
    /// sequence can be taken as the transaction's last step.
    func appendChange(_ entry: ChangeEntry, in zone: StoredZone) throws
    /// Creates or changes a share with its participants; `version` makes its change tag.
    func saveShare(_ share: Share, version: Int64, in zone: StoredZone) throws
    /// Deletes a share and its participants.
    func deleteShare(named name: String, in zone: StoredZone) throws
    /// Creates or replaces `user`'s subscription in `database`.
    func saveSubscription(_ subscription: Subscription, of user: String, in database: DatabaseID, at time: Int64) throws
    /// Deletes `user`'s subscription; whether there was one.
    func deleteSubscription(_ id: String, of user: String, in database: DatabaseID) throws -> Bool
    /// Queues `notification` once for its subscriber, until `expires`: each push token the
    /// subscriber holds takes it from there. `subject` is the record whose change made it.
    func enqueue(_ notification: QueuedNotification, expires: Int64, subject: String?) throws
    /// Notes that `user`'s subscription in `database` fired at `time`, queuing `queued`
    /// notifications (none when the subscriber held no push token).
    func noteSubscriptionFired(_ id: String, of user: String, in database: DatabaseID, at time: Int64, queued: Int) throws
    /// Marks entries as handed to their tokens; how many had not been.
    func removeNotifications(_ entries: [StoredNotification]) throws -> Int
    /// Takes, for each token's queue, the oldest notification not handed to that token and not
    /// expired at `now`, and marks it handed out, at `now` through the queue's channel: a caller claiming the same token at the same
    /// time (another process's, on PostgreSQL) waits for this one and takes the next entry.
    func claimNotifications(for queues: [PushTokenQueue], now: Int64) throws -> [StoredNotification]
    /// Puts claimed notifications back in their tokens' queues, each in the place it had.
    func unclaimNotifications(_ entries: [StoredNotification]) throws
    /// Notes a blob written to disk, or renews the upload time of one known already; whether it was new.
    func insertAssetBlob(_ blob: AssetBlob) throws -> Bool
    /// Blobs no record holds, created before `time`: removed from storage and returned, so
    /// that their files can go.
    func removeUnreferencedAssetBlobs(createdBefore time: Int64) throws -> [AssetBlob]
    /// Notes that the upload ticket `id` took its file; `false` when it had already.
    func insertUsedUploadTicket(_ id: String, expires: Int64) throws -> Bool
    /// Forgets used upload tickets that expired before `time`: they are refused as expired.
    func removeUsedUploadTickets(expiredBefore time: Int64) throws
    /// Removes the notifications that expired before `now`; how many. What became of each (its
    /// subscription, the tokens it was handed to) is kept as a trail, and the trails of those
    /// removed before `forgetting` are forgotten.
    func removeExpiredNotifications(before now: Int64, forgettingTrailsBefore forgetting: Int64) throws -> Int
    /// Forgets record tombstones, and zone tombstones, made before `time`, moving each
    /// horizon past them. Returns how many went.
    func forgetTombstones(before time: Int64) throws -> Int
    /// Keeps `stored`, as it is stored now, in the record history: called before the change
    /// that replaces it, in that change's transaction.
    func keepVersion(of stored: StoredRecord, in zone: StoredZone, replacedBy replacement: VersionReplacement) throws
    /// Keeps every record of `zone` in the history and the zone in the trash: called before the
    /// zone is deleted, in the deletion's transaction.
    func keepZone(_ zone: StoredZone, replacedBy replacement: VersionReplacement) throws
    /// Creates a zone restored from the trash, with a key no zone in the trash had, so that a
    /// sync token of the deleted zone is refused rather than read against the new zone's log.
    func restoreZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone
    /// Forgets the versions and trashed zones replaced before `time`; how many went.
    func forgetVersions(before time: Int64) throws -> Int
    /// Forgets every kept version of `database` (only of the records named, when given) and, for
    /// a whole database, its zones in the trash: what an erased user's data leaves behind. How
    /// many versions and zones went.
    func forgetHistory(of database: DatabaseID, recordNames: [String]?) throws -> Int
    /// Sets how long the environment keeps replaced versions, in milliseconds; `nil` for the
    /// server's default.
    func setHistoryRetention(_ retention: Int64?) throws
    /// Gives `user` exactly `roles` (custom roles of the schema).
    func setRoles(_ roles: Set<String>, of user: String) throws
    /// Deletes every record, zone, change, role assignment and the whole schema, and gives the
    /// environment a new incarnation: what a reset leaves before the schema is put back.
    func eraseEverything() throws
    /// Writes an operator action's audit entry in this transaction, with the change it records:
    /// into the audit trail where the transaction reaches it, else into the environment's outbox
    /// (``EnvironmentStorage/auditOutbox()``); entries from before `forgetBefore` are forgotten.
    func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64) throws
}

extension EnvironmentWriter {
    /// Queues `notification` with no record named as its subject.
    func enqueue(_ notification: QueuedNotification, expires: Int64) throws {
        try enqueue(notification, expires: expires, subject: nil)
    }
}
