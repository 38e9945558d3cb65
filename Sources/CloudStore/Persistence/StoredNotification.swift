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
