/// A notification as its push token's queue holds it: what a put-back needs to restore it in
/// the same place.
struct StoredNotification: Hashable, Sendable {
    /// The entry's key; the queue's order.
    var key: Int64
    /// The push token it is queued for.
    var token: String
    /// When it expires, in milliseconds since 1970.
    var expires: Int64
    /// The notification.
    var notification: QueuedNotification
}

extension StoredNotification {
    /// The columns of a queue entry, as both backends read it.
    static let columns = "id, token, expires, body"

    /// An entry from a row of ``columns``.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the stored notification is damaged.
    init(row: some StoredRow) throws {
        self.init(key: row.integer(0), token: row.text(1), expires: row.integer(2), notification: try SubscriptionCodec.decodeNotification(row.blob(3)))
    }
}
