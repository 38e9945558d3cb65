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
    /// The API token or server key the change's request carried; `nil` for the console's and
    /// the CLI's changes and those logged before the log kept it.
    public var credential: RequestLogCredential?
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
    /// Whether record names are left out (empty): a user's private or shared database in
    /// production, whose contents are theirs alone; positions, times, kinds, types and who made
    /// each change remain.
    public var contentsHidden = false
}

/// What a client would receive next from a zone's feed, simulated for an operator.
public struct SimulatedZoneChanges: Hashable, Sendable {
    /// The feed's page, as the reader's client receives it; in a user's private or shared
    /// database in production, with every record name empty and no field values.
    public var changes: ZoneChanges
    /// Whether record names and values are left out.
    public var contentsHidden: Bool
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
    /// here, so it is an operator's only. In a user's private or shared database in production
    /// it holds metadata only: record names are left out, and cannot be searched for.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator, and for
    ///   a search by record name in a user's database in production.
    public func changeLog(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String,
        _ range: ChangeLogRange = ChangeLogRange(), as caller: Caller
    ) throws -> ChangeLogPage {
        let hidden = try inspectionHidesContents(environment, database, as: caller)
        if hidden, range.recordNamePrefix != nil {
            throw CloudStoreError.accessDenied(
                "In production a user's record names are theirs alone: their \(database.scope) database's log cannot be searched by name")
        }
        return try inspectingZone(container, environment, database: database, zoneName: zoneName, as: caller) { reader, zone, signer in
            guard let zone else {
                let token = SyncToken(incarnation: try reader.incarnation(), zoneKey: 0, sequence: 0).encoded(with: signer)
                return ChangeLogPage(
                    entries: [], hasOlder: false, hasNewer: false, lastSequence: 0, horizon: 0, syncToken: token, contentsHidden: hidden)
            }
            let limit = min(max(range.limit, 1), 1000)
            let prefix = range.recordNamePrefix
            // From a position or a time: the oldest entries after it; otherwise the newest, before a position or the end.
            let forward = range.after != nil || range.since != nil
            let last = try reader.lastChangeSequence(in: zone)
            let filter =
                forward
                ? ChangeLogFilter(after: range.after ?? 0, namePrefix: prefix, since: range.since)
                : ChangeLogFilter(before: range.before, namePrefix: prefix, newestFirst: true)
            var found = try Self.searched(reader, zone, filter, limit: limit, last: last)
            if forward { found.reverse() }
            // Whether the pager leads anywhere, each way: any one entry past either end, looked for
            // as the page was (next to the end first).
            func exists(_ filter: ChangeLogFilter) throws -> Bool {
                var filter = filter
                filter.ordered = false
                return try !Self.searched(reader, zone, filter, limit: 1, last: last).isEmpty
            }
            let hasOlder =
                try found.last.map { try exists(ChangeLogFilter(before: $0.sequence, namePrefix: prefix, newestFirst: true)) } ?? false
            let hasNewer = try found.first.map { try exists(ChangeLogFilter(after: $0.sequence, namePrefix: prefix)) } ?? false
            return ChangeLogPage(
                entries: found.map { entry in
                    ChangeLogEntry(
                        sequence: entry.sequence, recordName: hidden ? "" : entry.recordName, recordType: entry.recordType,
                        kind: entry.kind.name,
                        creator: entry.creator, modifier: entry.modifier, credential: RequestLogCredential(packed: entry.via),
                        time: entry.time)
                },
                hasOlder: hasOlder, hasNewer: hasNewer, lastSequence: last, horizon: try reader.changeHorizon(in: zone),
                syncToken: SyncToken(incarnation: try reader.incarnation(), zoneKey: zone.key, sequence: last).encoded(with: signer),
                contentsHidden: hidden)
        }
    }

    /// How many entries next to where a searched page starts are read by position before the
    /// rest is searched by name.
    static let changeLogSearchWindow: Int64 = 2_000

    /// The entries `filter` keeps, at most `limit`. Without a name prefix, read by position.
    /// With one, first among the entries next to where the page starts, by position (a common
    /// beginning fills the page there at once), then beyond them by name (a rare one is found
    /// without reading every entry of the log).
    private static func searched(
        _ reader: any EnvironmentReader, _ zone: StoredZone, _ filter: ChangeLogFilter, limit: Int, last: Int64
    ) throws -> [ChangeEntry] {
        guard filter.namePrefix != nil else { return try reader.changes(in: zone, matching: filter, limit: limit) }
        var (window, beyond) = (filter, filter)
        beyond.byName = true
        let searchesBeyond: Bool
        if filter.newestFirst {
            // Entries between after and before: the window is the newest of them.
            let floor = max((filter.before ?? last + 1) - changeLogSearchWindow - 1, filter.after)
            window.after = floor
            beyond.before = floor + 1
            searchesBeyond = floor > filter.after
        } else {
            let ceiling = filter.after + changeLogSearchWindow
            window.before = ceiling + 1
            beyond.after = ceiling
            searchesBeyond = ceiling < last
        }
        var found = try reader.changes(in: zone, matching: window, limit: limit)
        if found.count < limit, searchesBeyond {
            found += try reader.changes(in: zone, matching: beyond, limit: limit - found.count)
        }
        return found
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
    ) throws -> SimulatedZoneChanges {
        guard case .operator = caller else {
            throw CloudStoreError.accessDenied("Only operators see what another reader's feed would receive")
        }
        let hidden = try inspectionHidesContents(environment, database, as: caller)
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
        }
        var changes = try self.database(container, environment, database: database, as: reader).reaching(owner: zoneOwner)
            .zoneChanges(zoneName: zoneName, syncToken: syncToken, desiredKeys: [])
        if hidden { changes.records = changes.records.map(Self.withoutContents) }
        return SimulatedZoneChanges(changes: changes, contentsHidden: hidden)
    }

    /// A feed's result with its record's name and values left out: what is kept is its kind and type.
    private static func withoutContents(_ result: RecordResult) -> RecordResult {
        switch result {
        case .record(var record):
            (record.recordName, record.fields, record.parent, record.share) = ("", [:], nil, nil)
            return .record(record)
        case .withheld(_, let tag, let zoneID): return .withheld(recordName: "", changeTag: tag, zoneID: zoneID)
        case .deleted(_, let zoneID): return .deleted(recordName: "", zoneID: zoneID)
        case .failure(let name, let error): return .failure(recordName: name.map { _ in "" }, error: error)
        }
    }

    /// The private database holding the zone named `zoneName` that is shared with the user of
    /// the shared database `shared` (its owner named by `owner`, or the first such zone): where
    /// the zone's log is. Which zones are shared with a user is metadata, so an operator may
    /// ask in either environment.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator;
    ///   ``CloudStoreError/zoneNotFound(_:)`` for a zone not shared with the user.
    public func sharedZoneHolder(
        _ container: ContainerIdentifier, _ environment: Environment, shared: DatabaseID, zoneName: String, owner: String?,
        as caller: Caller
    ) throws -> DatabaseID {
        guard case .operator = caller, shared.scope == .shared else {
            throw CloudStoreError.accessDenied("Only operators look up the zones shared with a user")
        }
        // The user's own view of their shared database: what the feed of their client reaches.
        let participant = CloudDatabase(
            store: self, storage: try self.environment(container, environment), container: container, environment: environment,
            database: shared, caller: .user(shared.owner))
        guard case .zone(let found)? = try participant.reaching(owner: owner).lookupZones([zoneName]).first else {
            throw CloudStoreError.zoneNotFound(ZoneID(zoneName: zoneName, ownerRecordName: owner ?? shared.owner))
        }
        return .private(found.zoneID.ownerRecordName)
    }

    /// Whether the inspector shows an operator metadata only in `database`: a user's private or
    /// shared database in production belongs to its user, so its record names and values are
    /// left out.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator.
    private func inspectionHidesContents(_ environment: Environment, _ database: DatabaseID, as caller: Caller) throws -> Bool {
        guard case .operator = caller else {
            throw CloudStoreError.accessDenied("Only operators read a zone's raw change log")
        }
        try AccessPolicy(caller: caller, database: database).checkAccess()
        return environment == .production && database.scope != .public
    }

    /// Runs `body` on a snapshot of the zone (`nil` for a default zone with no log yet), for an
    /// operator allowed into the database.
    private func inspectingZone<T: Sendable>(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String, as caller: Caller,
        _ body: (any EnvironmentReader, StoredZone?, OpaqueTokenSigner) throws -> T
    ) throws -> T {
        _ = try inspectionHidesContents(environment, database, as: caller)
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
