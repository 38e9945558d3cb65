/// What became of one committed record change's notifications, as the delivery tracer explains
/// it: the change, and every subscription it was weighed against with whether it fired, why
/// not, and what happened to what it queued, token by token.
public struct DeliveryTrace: Hashable, Sendable {
    /// The change traced: the record's latest in the zone's change log.
    public var change: TracedChange
    /// Every subscription of the database (and the participants' of a shared zone) the change
    /// was weighed against, or the one asked about.
    public var subscriptions: [TracedSubscription]
}

/// A committed change of a record.
public struct TracedChange: Hashable, Sendable {
    /// The database.
    public var database: DatabaseID
    /// The zone.
    public var zoneName: String
    /// The record.
    public var recordName: String
    /// Its type.
    public var recordType: String
    /// Its position in the zone's change log.
    public var sequence: Int64
    /// `create`, `update` or `delete`, as subscriptions fire on them.
    public var kind: Subscription.FiresOn
    /// When it committed, in milliseconds since 1970.
    public var time: Int64
    /// Who made it; `nil` for changes logged before the log kept it.
    public var modifier: String?
    /// Whether the record's filters could be weighed: a deleted record is weighed as its last
    /// version in the history, and not at all (filters unweighed) when the history has none.
    public var recordKnown: Bool
}

/// One subscription weighed against a change: whether it fired, and the fate of what it queued.
public struct TracedSubscription: Hashable, Sendable {
    /// What became of the change for this subscription, in a word.
    public enum Fate: String, Hashable, Sendable {
        /// A rule kept it from firing.
        case notMatched = "not matched"
        /// It fired but queued nothing: its subscriber held no push token.
        case skipped
        /// It fired; the notification waits for the subscriber's tokens.
        case queued
        /// It fired once for its zone or database in the change's transaction, for another record's change.
        case coalesced
        /// A token of the subscriber took the notification.
        case delivered
        /// The notification expired before any token of the subscriber took it.
        case expired
    }

    /// The database the subscription is in.
    public var database: DatabaseID
    /// The subscriber.
    public var userRecordName: String
    /// The subscription.
    public var subscription: Subscription
    /// Whether it fires for the change, or the first rule that keeps it from firing, weighed by
    /// the rules delivery itself weighs.
    public var match: SubscriptionMatch
    /// For a subscriber who may not read the record in the public database: the policy's
    /// explanation, every grant weighed.
    public var access: AccessExplanation?
    /// What became of the change for it.
    public var fate: Fate
    /// Why, in words.
    public var why: String
    /// The notifications the change's transaction queued for it.
    public var notifications: [TracedNotification]
}

/// A notification queued for a change, and what became of it for each push token.
public struct TracedNotification: Hashable, Sendable {
    /// The record whose change made it; `nil` for a zone's change or one queued before this was kept.
    public var subject: String?
    /// When it was queued (when the change committed), in milliseconds since 1970.
    public var created: Int64
    /// When it expires, or expired.
    public var expires: Int64
    /// When it was removed at its expiry; `nil` while queued.
    public var removed: Int64?
    /// Each push token's part in it.
    public var deliveries: [TracedDelivery]
}

/// What became of a notification for one push token.
public struct TracedDelivery: Hashable, Sendable {
    /// What became of it.
    public enum Fate: String, Hashable, Sendable {
        /// The courier handed it to the token.
        case fetched
        /// It waits in the token's queue.
        case waiting
        /// It expired before the token took it.
        case expired
        /// The token was bound to the subscriber after the change: it was never the token's.
        case notForThisToken = "not for this token"
    }

    /// The token's ``PushToken/id``.
    public var tokenID: String
    /// Whether the subscriber still holds the token.
    public var held: Bool
    /// What became of the notification for it.
    public var fate: Fate
    /// How it was handed out, when it was and that was noted.
    public var channel: NotificationChannel?
    /// When it was handed out, when that was noted.
    public var time: Int64?
}

extension SubscriptionMatch {
    /// Why the subscription fires or does not, in words.
    public var why: String {
        switch self {
        case .matched: "every rule lets it fire"
        case .otherRecordType(let type): "it watches records of type \(type)"
        case .otherZone(let zone): "it watches the zone \(zone)"
        case .firesOnExcludes(let change, let firesOn):
            "it fires on \(Subscription.FiresOn.allCases.filter(firesOn.contains).map(\.rawValue).joined(separator: ", ")), not on \(change.rawValue)"
        case .subscriberCannotRead: "its subscriber may not read the record"
        case .filtersNotMatched: "the record does not pass its query's filters"
        case .queryNoLongerRuns: "its query no longer runs (the schema lost an index it needs)"
        case .filtersNotWeighed: "every rule but the filters lets it fire; the deleted record's fields are not kept to weigh them"
        }
    }
}
