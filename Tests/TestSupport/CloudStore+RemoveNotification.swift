import CloudStore

extension CloudStore {
    /// Removes one notification that was handed out from its token's queue: the one-value case
    /// of ``CloudStore/removeNotifications(_:)``, which the server calls with a batch.
    /// - Returns: whether it was still queued.
    @discardableResult
    public func removeNotification(_ delivery: NotificationDelivery) throws -> Bool {
        try removeNotifications([delivery]) == 1
    }
}
