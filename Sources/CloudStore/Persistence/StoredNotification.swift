/// A notification as a push token's queue holds it: what a put-back needs to restore it in
/// the same place.
struct StoredNotification: Hashable, Sendable {
    /// The entry's key; the queue's order.
    var key: Int64
    /// The push token it is handed to.
    var token: String
    /// When it expires, in milliseconds since 1970.
    var expires: Int64
    /// The notification.
    var notification: QueuedNotification
}

/// A push token's queue: the notifications queued once for its user since it was bound, less
/// those already handed to it. Queued once per subscriber, not per token, so that no save writes
/// more rows for a subscriber holding many tokens.
struct PushTokenQueue: Hashable, Sendable {
    /// The push token.
    var token: String
    /// The user holding it.
    var user: String
    /// When it was bound to the user: notifications queued before are not its.
    var since: Int64
    /// How the claiming courier hands its entries out, noted with each; `nil` when not said.
    var channel: NotificationChannel? = nil
}

/// What became of one queued notification, as storage keeps it: while queued, and after it was
/// removed at its expiry for ``CloudStore/notificationOutcomeRetention``.
struct NotificationTrail: Hashable, Sendable {
    /// The queue entry's key.
    var key: Int64
    /// The subscriber.
    var user: String
    /// The subscription that made it; `nil` for one queued before trails were kept.
    var subscriptionID: String?
    /// The record whose change made it; `nil` for a zone's change, or one queued before trails were kept.
    var subject: String?
    /// When the change committed.
    var created: Int64
    /// When it expires, or expired.
    var expires: Int64
    /// When it was removed at its expiry; `nil` while queued.
    var removed: Int64?
    /// The tokens it was handed to.
    var handovers: [NotificationHandover]
}

/// A notification handed to one push token by the courier.
struct NotificationHandover: Hashable, Sendable {
    /// The push token.
    var token: String
    /// How: a long poll or an event stream; `nil` when not noted.
    var channel: NotificationChannel?
    /// When, in milliseconds since 1970; `nil` when not noted.
    var time: Int64?
}

extension StoredNotification {
    /// The columns of a queue entry, as both backends read it.
    static let columns = "id, expires, body"

    /// An entry from a row of ``columns``, handed to `token`.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the stored notification is damaged.
    init(row: some StoredRow, token: String, offset: Int32 = 0) throws {
        self.init(
            key: row.integer(offset), token: token, expires: row.integer(offset + 1),
            notification: try SubscriptionCodec.decodeNotification(row.blob(offset + 2)))
    }
}

/// When a subscription last fired and how many notifications it queued, as storage keeps it.
struct SubscriptionFiring: Hashable, Sendable {
    /// The database the subscription is in.
    var database: DatabaseID
    /// The subscriber.
    var user: String
    /// The subscription's identifier.
    var id: String
    /// When it last fired, in milliseconds since 1970.
    var lastFired: Int64
    /// How many notifications it queued, all told.
    var queued: Int64
}

extension NotificationTrail {
    /// The columns of a trail, as both backends read it from a queued notification (with its
    /// body) or from a removed one's kept trail (with none).
    static let queuedColumns = "id, subscription, subject, created, expires, NULL, body"
    /// The columns of a removed notification's trail, in the order of ``queuedColumns``.
    static let removedColumns = "id, subscription, subject, created, expires, removed, NULL"

    /// A trail from a row of ``queuedColumns`` or ``removedColumns``, with its handovers.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when a stored notification is damaged.
    init(row: some StoredRow, user: String, handovers: (Int64) throws -> [NotificationHandover]) throws {
        let key = row.integer(0)
        // Queued before trails were kept: the subscription is in the notification itself.
        let subscription =
            try row.optionalText(1) ?? (row.isNull(6) ? nil : SubscriptionCodec.decodeNotification(row.blob(6)).subscriptionID)
        self.init(
            key: key, user: user, subscriptionID: subscription, subject: row.optionalText(2), created: row.integer(3),
            expires: row.integer(4), removed: row.optionalInteger(5), handovers: try handovers(key))
    }
}

extension NotificationHandover {
    /// The columns of a handover, as both backends read it.
    static let columns = "token, channel, at"

    /// A handover from a row of ``columns``.
    init(row: some StoredRow) {
        self.init(
            token: row.text(0), channel: row.optionalInteger(1).flatMap(NotificationChannel.init(rawValue:)), time: row.optionalInteger(2))
    }
}
