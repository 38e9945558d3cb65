/// Makes the notifications of one write transaction: for each record change, the query
/// subscriptions it fires (the record's type and zone, the change's kind, the query's filters,
/// and a subscriber who may read the record), and once per transaction each zone and database
/// subscription whose zone changed. They are queued once per subscriber holding a push token, in
/// the same transaction as the change, so a change rolled back notifies nobody and a committed
/// one survives a restart; each of the subscriber's tokens takes them from there when it polls,
/// so the rows a save writes do not grow with the tokens subscribers hold. A change in a shared zone also fires the subscriptions its participants
/// hold in their shared databases, for what they may read through the share.
final class NotificationGenerator {
    private let container: ContainerIdentifier
    private let environment: Environment
    private let database: DatabaseID
    private let now: Int64
    private let lifetime: Int64
    private let pushTokens: (String) throws -> [String]

    /// The database's subscriptions, read once the transaction changes anything.
    private var subscriptions: [(user: String, subscription: Subscription)]?
    /// The shared-database subscriptions of each zone's participants, by zone key.
    private var participantSubscriptions: [Int64: [(user: String, subscription: Subscription)]] = [:]
    /// What a change in each zone is weighed against, by zone key.
    private var candidatesByZone: [Int64: [SubscriptionCandidate]] = [:]
    /// The notifications made, each with the database of the subscription that fired and the
    /// record whose change made it (none for a zone's).
    private var pending: [(notification: QueuedNotification, subscriptionDatabase: DatabaseID, subject: String?)] = []
    /// Zone and database subscriptions fire once per transaction; fire-once ones once ever.
    private var fired: Set<SubscriptionKey> = []
    private var firedOnce: [SubscriptionKey] = []
    /// Notifications queued by ``flush(to:)``, for metrics: counted once the transaction commits.
    private(set) var queuedCount = 0
    /// Per subscriber and whether through shares, the readers deciding what they may learn of.
    private var access: [SubscriptionKey: TransactionAccess] = [:]

    /// A subscription that fired, in the database it is in.
    private struct Firing: Hashable {
        var user: String
        var id: String
        var database: DatabaseID
    }

    private struct SubscriptionKey: Hashable {
        var user: String
        var id: String
        /// Whether the subscription is in the user's shared database, not in `database`.
        var viaShare = false
    }

    init(
        container: ContainerIdentifier, environment: Environment, database: DatabaseID, now: Int64, lifetime: Int64,
        pushTokens: @escaping (String) throws -> [String]
    ) {
        self.container = container
        self.environment = environment
        self.database = database
        self.now = now
        self.lifetime = lifetime
        self.pushTokens = pushTokens
    }

    /// A record was created or updated (it is stored as it is now), or is about to be deleted
    /// (it is still stored).
    func recordChanged(_ stored: StoredRecord, _ change: Subscription.FiresOn, in zone: StoredZone, reader: any EnvironmentReader) throws {
        let candidates = try self.candidates(in: zone, reader: reader)
        guard !candidates.isEmpty else { return }
        let record = stored.record
        let schema = try reader.schema()
        let notificationID = SecureToken.recordName(at: now)
        for candidate in candidates {
            let key = SubscriptionKey(user: candidate.user, id: candidate.subscription.subscriptionID, viaShare: candidate.viaShare)
            guard !fired.contains(key) else { continue }
            let match = try self.match(candidate, stored, change, in: zone, schema: schema, reader: reader)
            guard case .matched(let reason) = match else { continue }
            switch candidate.subscription.kind {
            case .query(_, _, _, let firesOnce):
                if firesOnce {
                    fired.insert(key)
                    firedOnce.append(key)
                }
            case .zone, .database:
                fired.insert(key)
            }
            pending.append(
                (
                    notification(
                        candidate.subscription, user: candidate.user, id: notificationID, reason: reason,
                        scope: candidate.viaShare ? .shared : database.scope),
                    candidate.viaShare ? .shared(candidate.user) : database, record.recordName
                ))
        }
    }

    /// The subscriptions a change of a record in `zone` is weighed against: the database's, and
    /// in a private database those its participants hold in their shared databases.
    func candidates(in zone: StoredZone, reader: any EnvironmentReader) throws -> [SubscriptionCandidate] {
        if let known = candidatesByZone[zone.key] { return known }
        let made =
            try loadedSubscriptions(reader).map { SubscriptionCandidate(user: $0.user, subscription: $0.subscription, viaShare: false) }
            + sharedSubscriptions(in: zone, reader: reader).map {
                SubscriptionCandidate(user: $0.user, subscription: $0.subscription, viaShare: true)
            }
        // Nothing to weigh is not kept: a transaction in a database without subscriptions allocates nothing here.
        if !made.isEmpty { candidatesByZone[zone.key] = made }
        return made
    }

    /// Whether a change of `stored` fires `candidate`, and if not, the first rule that keeps it
    /// from firing, weighed in the order delivery weighs them: the record's type, its zone, the
    /// change's kind, the subscriber's READ permission, then the query's filters. What real
    /// delivery and the delivery tracer both ask. `filters` false leaves the filters unweighed
    /// (a deleted record is no longer stored for the query engine to test).
    func match(
        _ candidate: SubscriptionCandidate, _ stored: StoredRecord, _ change: Subscription.FiresOn, in zone: StoredZone, schema: Schema,
        reader: any EnvironmentReader, filters: Bool = true
    ) throws -> SubscriptionMatch {
        let record = stored.record
        let key = SubscriptionKey(user: candidate.user, id: candidate.subscription.subscriptionID, viaShare: candidate.viaShare)
        switch candidate.subscription.kind {
        case .query(let query, let zoneName, let firesOn, _):
            guard query.recordType == record.recordType else { return .otherRecordType(query.recordType) }
            if let zoneName, zoneName != zone.zoneID.zoneName { return .otherZone(zoneName) }
            guard firesOn.contains(change) else { return .firesOnExcludes(change, firesOn: firesOn) }
            guard try canRead(record, subscriber: key, schema: schema, reader: reader) else { return .subscriberCannotRead }
            guard filters || query.filters.isEmpty else { return .filtersNotWeighed }
            switch try Self.matches(stored, query: query, zone: zone, schema: schema, reader: reader) {
            case nil: return .queryNoLongerRuns
            case false?: return .filtersNotMatched
            case true?: break
            }
            var fields: [String: FieldValue] = [:]
            for name in candidate.subscription.notificationInfo?.additionalFields ?? [] { fields[name] = record.fields[name] }
            return .matched(.query(recordName: record.recordName, firesOn: change, zoneID: zone.zoneID, fields: fields))
        case .zone(let zoneName):
            guard zoneName == zone.zoneID.zoneName else { return .otherZone(zoneName) }
            guard try canRead(record, subscriber: key, schema: schema, reader: reader) else { return .subscriberCannotRead }
            return .matched(.zone(zone.zoneID))
        case .database:
            guard try canRead(record, subscriber: key, schema: schema, reader: reader) else { return .subscriberCannotRead }
            return .matched(.database)
        }
    }

    /// A zone was created or deleted: database subscriptions fire.
    func zoneChanged(reader: any EnvironmentReader) throws {
        let notificationID = SecureToken.recordName(at: now)
        for (user, subscription) in try loadedSubscriptions(reader) {
            let key = SubscriptionKey(user: user, id: subscription.subscriptionID)
            guard case .database = subscription.kind, !fired.contains(key) else { continue }
            fired.insert(key)
            pending.append(
                (notification(subscription, user: user, id: notificationID, reason: .database, scope: database.scope), database, nil))
        }
    }

    /// Forgets what an atomic batch that failed had made.
    func discard() {
        pending = []
        fired = []
        firedOnce = []
    }

    /// Queues what the transaction made once for each subscriber holding push tokens, notes
    /// when each subscription that fired did and how many it queued (one statement per
    /// subscription, none when nothing fired), and deletes the fire-once subscriptions that fired.
    /// - Returns: the push tokens given notifications, to wake their waiting polls after commit.
    func flush(to writer: any EnvironmentWriter) throws -> Set<String> {
        var tokensOf: [String: [String]] = [:]
        var woken: Set<String> = []
        var queued: [Firing: Int] = [:]
        var firings: [Firing] = []
        for (notification, subscriptionDatabase, subject) in pending {
            let user = notification.userRecordName
            let firing = Firing(user: user, id: notification.subscriptionID, database: subscriptionDatabase)
            if queued[firing] == nil {
                queued[firing] = 0
                firings.append(firing)
            }
            if tokensOf[user] == nil { tokensOf[user] = try pushTokens(user) }
            let tokens = tokensOf[user] ?? []
            // A subscriber with no token to take it would never be handed it.
            guard !tokens.isEmpty else { continue }
            try writer.enqueue(notification, expires: now + lifetime, subject: subject)
            queuedCount += 1
            queued[firing, default: 0] += 1
            woken.formUnion(tokens)
        }
        for firing in firings {
            try writer.noteSubscriptionFired(firing.id, of: firing.user, in: firing.database, at: now, queued: queued[firing] ?? 0)
        }
        for key in firedOnce { _ = try writer.deleteSubscription(key.id, of: key.user, in: key.viaShare ? .shared(key.user) : database) }
        discard()
        return woken
    }

    private func loadedSubscriptions(_ reader: any EnvironmentReader) throws -> [(user: String, subscription: Subscription)] {
        if let subscriptions { return subscriptions }
        let loaded = try reader.subscriptions(in: database)
        subscriptions = loaded
        return loaded
    }

    /// The subscriptions the participants of `zone`'s shares hold in their shared databases.
    private func sharedSubscriptions(in zone: StoredZone, reader: any EnvironmentReader) throws -> [(
        user: String, subscription: Subscription
    )] {
        guard database.scope == .private else { return [] }
        if let known = participantSubscriptions[zone.key] { return known }
        var users: Set<String> = []
        for share in try reader.shares(in: zone) {
            for participant in share.participants {
                if let user = participant.userRecordName, share.permission(of: user) != .none { users.insert(user) }
            }
        }
        var loaded: [(user: String, subscription: Subscription)] = []
        for user in users.sorted() {
            loaded += try reader.subscriptions(of: user, in: .shared(user)).map { (user, $0) }
        }
        participantSubscriptions[zone.key] = loaded
        return loaded
    }

    private func notification(
        _ subscription: Subscription, user: String, id: String, reason: QueuedNotification.Reason, scope: DatabaseScope
    ) -> QueuedNotification {
        QueuedNotification(
            notificationID: id, subscriptionID: subscription.subscriptionID, container: container, environment: environment,
            userRecordName: user, databaseScope: scope, reason: reason, notificationInfo: subscription.notificationInfo, created: now)
    }

    /// Whether the subscriber may read the record: nobody learns of a change by subscribing.
    private func canRead(_ record: Record, subscriber: SubscriptionKey, schema: Schema, reader: any EnvironmentReader) throws -> Bool {
        let key = SubscriptionKey(user: subscriber.user, id: "", viaShare: subscriber.viaShare)
        let decider =
            access[key]
            ?? TransactionAccess(
                policy: AccessPolicy(caller: .user(subscriber.user), database: database, viaShare: subscriber.viaShare), reader: reader)
        access[key] = decider
        return try decider.canRead(record, in: schema)
    }

    /// Whether the stored record passes the query's filters, decided by the query engine itself;
    /// `nil` when the query no longer runs.
    private static func matches(_ stored: StoredRecord, query: Query, zone: StoredZone, schema: Schema, reader: any EnvironmentReader)
        throws
        -> Bool?
    {
        guard !query.filters.isEmpty else { return true }
        // The schema may have lost an index the subscription's query needs since it was saved:
        // such a subscription fires no more, as its query would no longer run.
        guard var plan = try? QueryPlanner(schema: schema).plan(query, zones: [zone], limit: 1) else { return nil }
        plan.onlyKey = stored.key
        return try !reader.query(plan).isEmpty
    }
}
