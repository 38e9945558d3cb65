/// A subscription as operators see it: whose, where, and what.
public struct HeldSubscription: Hashable, Sendable {
    /// The database it watches.
    public var database: DatabaseID
    /// The subscriber.
    public var userRecordName: String
    /// The subscription.
    public var subscription: Subscription
    /// When it last fired (a change matched it), in milliseconds since 1970; `nil` if never
    /// since it was made or since firings were kept.
    public var lastFired: Int64? = nil
    /// How many notifications it queued, all told (none when its subscriber held no push token).
    public var queued: Int64 = 0
}

/// A push token's queue as operators see it.
public struct NotificationQueue: Hashable, Sendable {
    /// The push token.
    public var token: String
    /// The user holding it, if one registered it.
    public var userRecordName: String?
    /// Notifications waiting.
    public var waiting: Int
}

/// One entry of a zone's change log, as the change-feed inspector shows it.
public struct ChangeLogEntry: Hashable, Sendable {
    /// Position in the zone's log.
    public var sequence: Int64
    /// The record changed.
    public var recordName: String
    /// Its type.
    public var recordType: String
    /// `created`, `updated` or `deleted` (a tombstone).
    public var kind: String
    /// The record's creator.
    public var creator: String
    /// Who made the change; `nil` for changes logged before the log kept it.
    public var modifier: String?
    /// When, in milliseconds since 1970.
    public var time: Int64
}

/// A page of a zone's change log.
public struct ChangeLogPage: Hashable, Sendable {
    /// The entries of the page, newest first.
    public var entries: [ChangeLogEntry]
    /// Whether entries the page's filter keeps come before its oldest entry.
    public var hasOlder: Bool
    /// Whether entries the page's filter keeps come after its newest entry.
    public var hasNewer: Bool
    /// The zone's latest sequence.
    public var lastSequence: Int64
    /// The newest tombstone forgotten after the retention: tokens before it answer CHANGE_TOKEN_EXPIRED.
    public var horizon: Int64
    /// The zone's current sync token.
    public var syncToken: String
}

/// Which page of a zone's change log to show: the newest entries (before a position), or the
/// oldest after a position or from a time on, of every record or of those whose name starts
/// with a prefix. Pages always list their entries newest first.
public struct ChangeLogRange: Hashable, Sendable {
    /// Entries after this sequence, the oldest of them.
    public var after: Int64?
    /// Entries before this sequence, the newest of them.
    public var before: Int64?
    /// Entries from this time on (milliseconds since 1970), the oldest of them.
    public var since: Int64?
    /// Entries of records whose name starts with this (an exact name included).
    public var recordNamePrefix: String?
    /// The most entries on the page.
    public var limit: Int

    /// A range; without `after`, `before` or `since`, the newest entries.
    public init(
        after: Int64? = nil, before: Int64? = nil, since: Int64? = nil, recordNamePrefix: String? = nil,
        limit: Int = CloudStore.changeLogPageSize
    ) {
        self.after = after
        self.before = before
        self.since = since
        self.recordNamePrefix = recordNamePrefix?.isEmpty == true ? nil : recordNamePrefix
        self.limit = limit
    }
}

/// A sync token as the change-feed inspector decodes it: the zone it belongs to and how far its
/// holder has read.
public struct HeldSyncToken: Hashable, Sendable {
    /// The zone the token belongs to; `nil` when it is of a zone no longer there or of another database.
    public var zoneID: ZoneID?
    /// Whether it belongs to the zone asked about.
    public var isOfThisZone: Bool
    /// The last change its holder has received.
    public var sequence: Int64
    /// When that change was made, in milliseconds since 1970, while the log still holds it.
    public var time: Int64?
    /// Whether the token is from before a reset or restore of the environment.
    public var isFromAnotherIncarnation: Bool
}

extension CloudStore {
    // MARK: - Inspecting sync (operators)

    /// Every subscription of a container's environment, by database and subscriber.
    public func subscriptions(_ container: ContainerIdentifier, _ environment: Environment) throws -> [HeldSubscription] {
        try self.environment(container, environment).read { reader in
            let firings = Dictionary(
                try reader.subscriptionFirings().map { ("\($0.database)\u{0}\($0.user)\u{0}\($0.id)", $0) },
                uniquingKeysWith: { first, _ in first })
            return try reader.allSubscriptions().map {
                let firing = firings["\($0.database)\u{0}\($0.user)\u{0}\($0.subscription.subscriptionID)"]
                return HeldSubscription(
                    database: $0.database, userRecordName: $0.user, subscription: $0.subscription, lastFired: firing?.lastFired,
                    queued: firing?.queued ?? 0)
            }
        }
    }

    /// Deletes a user's subscription, as an operator.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when the user holds no such subscription.
    public func deleteSubscription(
        _ id: String, of user: String, in database: DatabaseID, _ container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws {
        let subscriber = try actor.flatMap { _ in try self.user(user, in: container) }
        let note = auditNote(
            subscriber.flatMap { _ in actor }, "subscription.delete", container, environment, target: "\(subscriber?.name ?? "")/\(id)")
        let deleted = try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).write { writer in
                let deleted = try writer.deleteSubscription(id, of: user, in: database)
                if deleted { try writer.record(note) }
                return deleted
            }
        }
        guard deleted else { throw CloudStoreError.notFound("Subscription '\(id)' not found") }
    }

    /// The push tokens of a container's environment with notifications waiting, and how many.
    public func notificationQueues(_ container: ContainerIdentifier, _ environment: Environment) throws -> [NotificationQueue] {
        try queuedNotificationCounts(container, environment).sorted { $0.key < $1.key }.map { token, count in
            NotificationQueue(token: token, userRecordName: try credentials.pushToken(token)?.userRecordName, waiting: count)
        }
    }

    /// The change-feed inspector's page size.
    public static let changeLogPageSize = 50

    /// A page of the raw change log of a zone, tombstones included, newest first, as the
    /// change-feed inspector shows it to an operator; what a reader may see is not filtered
    /// here, so it is an operator's only, under the rules of opening the database.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator, and for
    ///   a user's private or shared database in production, as ``database(_:_:database:as:)``.
    public func changeLog(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String,
        _ range: ChangeLogRange = ChangeLogRange(), as caller: Caller
    ) throws -> ChangeLogPage {
        try inspectingZone(container, environment, database: database, zoneName: zoneName, as: caller) { reader, zone, signer in
            guard let zone else {
                let token = SyncToken(incarnation: try reader.incarnation(), zoneKey: 0, sequence: 0).encoded(with: signer)
                return ChangeLogPage(entries: [], hasOlder: false, hasNewer: false, lastSequence: 0, horizon: 0, syncToken: token)
            }
            let limit = min(max(range.limit, 1), 1000)
            let prefix = range.recordNamePrefix
            // From a position or a time: the oldest entries after it; otherwise the newest, before a position or the end.
            let forward = range.after != nil || range.since != nil
            let filter =
                forward
                ? ChangeLogFilter(after: range.after ?? 0, namePrefix: prefix, since: range.since)
                : ChangeLogFilter(before: range.before, namePrefix: prefix, newestFirst: true)
            var found = try reader.changes(in: zone, matching: filter, limit: limit)
            if forward { found.reverse() }
            // Whether the pager leads anywhere, each way: one entry looked for past either end.
            func exists(_ filter: ChangeLogFilter) throws -> Bool { try !reader.changes(in: zone, matching: filter, limit: 1).isEmpty }
            let hasOlder = try found.last.map { try exists(ChangeLogFilter(before: $0.sequence, namePrefix: prefix)) } ?? false
            let hasNewer = try found.first.map { try exists(ChangeLogFilter(after: $0.sequence, namePrefix: prefix)) } ?? false
            let last = try reader.lastChangeSequence(in: zone)
            return ChangeLogPage(
                entries: found.map { entry in
                    ChangeLogEntry(
                        sequence: entry.sequence, recordName: entry.recordName, recordType: entry.recordType, kind: entry.kind.name,
                        creator: entry.creator, modifier: entry.modifier, time: entry.time)
                },
                hasOlder: hasOlder, hasNewer: hasNewer, lastSequence: last, horizon: try reader.changeHorizon(in: zone),
                syncToken: SyncToken(incarnation: try reader.incarnation(), zoneKey: zone.key, sequence: last).encoded(with: signer))
        }
    }

    /// A sync token decoded for an operator: the zone it belongs to (looked for in `database`),
    /// the last change its holder received and when that change was made.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a token that is forged or damaged;
    ///   ``CloudStoreError/accessDenied(_:)`` as ``changeLog(_:_:database:zoneName:_:as:)``.
    public func decodeSyncToken(
        _ text: String, _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String,
        as caller: Caller
    ) throws -> HeldSyncToken {
        let token = try SyncToken.decode(text, with: syncTokenSigner)
        return try inspectingZone(container, environment, database: database, zoneName: zoneName, as: caller) { reader, zone, _ in
            let current = try reader.incarnation() == token.incarnation
            let owner = current ? try reader.zones(in: database).first { $0.key == token.zoneKey } : nil
            // A default zone's token from before its first record names no zone: it is this one's.
            let isOfThisZone = token.zoneKey == (zone?.key ?? 0) || (token.zoneKey == 0 && token.sequence == 0)
            var time: Int64?
            if let owner, token.sequence > 0 {
                time = try reader.changes(in: owner, matching: ChangeLogFilter(after: token.sequence - 1), limit: 1)
                    .first { $0.sequence == token.sequence }?.time
            }
            return HeldSyncToken(
                zoneID: isOfThisZone ? ZoneID(zoneName: zoneName, ownerRecordName: database.owner) : owner?.zoneID,
                isOfThisZone: isOfThisZone, sequence: token.sequence, time: time, isFromAnotherIncarnation: !current)
        }
    }

    /// What a client of `reader` (the world, or a signed-in user) holding `syncToken` receives
    /// next from the zone's feed: the feed itself, run as that reader, so that the records the
    /// reader may not read are left out as they are for the client. A token of another zone is
    /// refused naming the zone it belongs to. In the shared database, `zoneOwner` names the
    /// owner of the zone shared with the database's user.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator, for a
    ///   user's private or shared database in production, and for a reader who may not open the
    ///   database; the feed's errors otherwise.
    public func simulatedZoneChanges(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneOwner: String? = nil,
        zoneName: String, syncToken: String?, reader: Caller, as caller: Caller
    ) throws -> ZoneChanges {
        guard case .operator = caller else {
            throw CloudStoreError.accessDenied("Only operators see what another reader's feed would receive")
        }
        switch reader {
        case .world, .user: break
        case .server, .operator: throw CloudStoreError.badRequest("A feed is simulated for the world or a signed-in user")
        }
        // A shared zone's log is its owner's: the token is decoded there.
        let holder: DatabaseID =
            if database.scope == .shared, let zoneOwner, zoneOwner != database.owner { .private(zoneOwner) } else { database }
        if let syncToken {
            let held = try decodeSyncToken(syncToken, container, environment, database: holder, zoneName: zoneName, as: caller)
            if !held.isOfThisZone, let zoneID = held.zoneID {
                throw CloudStoreError.badRequest("The sync token belongs to zone \(zoneID.zoneName) (\(zoneID.ownerRecordName))")
            }
        } else {
            _ = try self.database(container, environment, database: database, as: caller)
        }
        return try self.database(container, environment, database: database, as: reader).reaching(owner: zoneOwner)
            .zoneChanges(zoneName: zoneName, syncToken: syncToken, desiredKeys: [])
    }

    /// Runs `body` on a snapshot of the zone (`nil` for a default zone with no log yet), for an
    /// operator allowed into the database.
    private func inspectingZone<T: Sendable>(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String, as caller: Caller,
        _ body: (any EnvironmentReader, StoredZone?, OpaqueTokenSigner) throws -> T
    ) throws -> T {
        guard case .operator = caller else {
            throw CloudStoreError.accessDenied("Only operators read a zone's raw change log")
        }
        // The same check as every other way into the database: production private data is its users' alone.
        _ = try self.database(container, environment, database: database, as: caller)
        let signer = syncTokenSigner
        return try self.environment(container, environment).read { reader in
            let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: database.owner)
            let zone = try reader.zone(named: zoneName, in: database)
            guard zone != nil || zoneID.isDefaultZone else { throw CloudStoreError.zoneNotFound(zoneID) }
            return try body(reader, zone, signer)
        }
    }
}

extension ChangeEntry.Kind {
    /// The kind as the inspector names it.
    var name: String {
        switch self {
        case .created: "created"
        case .updated: "updated"
        case .deleted: "deleted"
        }
    }
}
