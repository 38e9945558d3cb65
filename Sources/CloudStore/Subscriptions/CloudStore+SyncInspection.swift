/// A subscription as operators see it: whose, where, and what.
public struct HeldSubscription: Hashable, Sendable {
    /// The database it watches.
    public var database: DatabaseID
    /// The subscriber.
    public var userRecordName: String
    /// The subscription.
    public var subscription: Subscription
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
    /// When, in milliseconds since 1970.
    public var time: Int64
}

/// A page of a zone's change log.
public struct ChangeLogPage: Hashable, Sendable {
    /// Entries after the position asked, oldest first.
    public var entries: [ChangeLogEntry]
    /// The zone's latest sequence.
    public var lastSequence: Int64
    /// The newest tombstone forgotten after the retention: tokens before it answer CHANGE_TOKEN_EXPIRED.
    public var horizon: Int64
    /// The zone's current sync token.
    public var syncToken: String
}

extension CloudStore {
    // MARK: - Inspecting sync (operators)

    /// Every subscription of a container's environment, by database and subscriber.
    public func subscriptions(_ container: ContainerIdentifier, _ environment: Environment) throws -> [HeldSubscription] {
        try self.environment(container, environment).read { reader in
            try reader.allSubscriptions().map {
                HeldSubscription(database: $0.database, userRecordName: $0.user, subscription: $0.subscription)
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

    /// The raw change log of a zone after `sequence` (or from `time` on), tombstones included,
    /// as the change-feed inspector shows it to an operator; what a reader may see is not
    /// filtered here, so it is an operator's only, under the rules of opening the database.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator, and for
    ///   a user's private or shared database in production, as ``database(_:_:database:as:)``.
    public func changeLog(
        _ container: ContainerIdentifier, _ environment: Environment, database: DatabaseID, zoneName: String, after sequence: Int64? = nil,
        since time: Int64? = nil, limit: Int = 200, as caller: Caller
    ) throws -> ChangeLogPage {
        guard case .operator = caller else {
            throw CloudStoreError.accessDenied("Only operators read a zone's raw change log")
        }
        // The same check as every other way into the database: production private data is its users' alone.
        _ = try self.database(container, environment, database: database, as: caller)
        let signer = syncTokenSigner
        return try self.environment(container, environment).read { reader in
            let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: database.owner)
            guard let zone = try reader.zone(named: zoneName, in: database) else {
                guard zoneID.isDefaultZone else { throw CloudStoreError.zoneNotFound(zoneID) }
                let token = SyncToken(incarnation: try reader.incarnation(), zoneKey: 0, sequence: 0).encoded(with: signer)
                return ChangeLogPage(entries: [], lastSequence: 0, horizon: 0, syncToken: token)
            }
            var after = sequence ?? 0
            var entries: [ChangeEntry] = []
            let bounded = min(max(limit, 1), 1000)
            // From a time: skip, a page at a time, what came before it.
            repeat {
                let page = try reader.changes(in: zone, after: after, limit: time == nil ? bounded : 1000)
                entries += page.filter { time == nil || $0.time >= time! }
                guard let last = page.last, page.count == 1000, time != nil, entries.count < bounded else { break }
                after = last.sequence
            } while true
            let last = try reader.lastChangeSequence(in: zone)
            return ChangeLogPage(
                entries: entries.prefix(bounded).map { entry in
                    ChangeLogEntry(
                        sequence: entry.sequence, recordName: entry.recordName, recordType: entry.recordType, kind: entry.kind.name,
                        creator: entry.creator, time: entry.time)
                },
                lastSequence: last, horizon: try reader.changeHorizon(in: zone),
                syncToken: SyncToken(incarnation: try reader.incarnation(), zoneKey: zone.key, sequence: last).encoded(with: signer))
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
