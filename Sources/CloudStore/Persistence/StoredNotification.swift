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
