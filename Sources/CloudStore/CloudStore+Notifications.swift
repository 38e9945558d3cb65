/// A queued notification as the courier takes it: the notification and where it is queued.
public struct NotificationDelivery: Hashable, Sendable {
    /// Storage's key of the queue entry.
    let key: Int64
    /// The push token it is queued for.
    public let token: PushToken
    /// The notification.
    public let notification: QueuedNotification
}

extension CloudStore {
    // MARK: - Queued notifications

    /// Calls `listener`, after each commit that queued notifications, with the push tokens that
    /// got some; from the committing thread, so it must be quick.
    public func onNotificationsQueued(_ listener: @escaping @Sendable (Set<String>) -> Void) {
        notificationListeners.withLock { $0.append(listener) }
    }

    /// Tells the listeners which push tokens got notifications.
    func notificationsQueued(_ tokens: Set<String>) {
        guard !tokens.isEmpty else { return }
        for listener in notificationListeners.withLock({ $0 }) { listener(tokens) }
    }

    /// The generator of one write transaction's notifications in `database`.
    func notifier(_ container: ContainerIdentifier, _ environment: Environment, _ database: DatabaseID) -> NotificationGenerator {
        let credentials = credentials
        return NotificationGenerator(
            container: container, environment: environment, database: database, now: now, lifetime: configuration.notificationLifetime,
            pushTokens: { user in try credentials.pushTokens(of: user, in: container, environment) })
    }

    /// The oldest notification queued for `token` that has not expired, left in the queue until
    /// ``removeNotification(_:)`` says it was handed out.
    public func oldestNotification(for token: PushToken) throws -> NotificationDelivery? {
        let time = now
        return try environment(token.container, token.environment).read { reader in
            try reader.oldestNotification(for: token.token, now: time).map {
                NotificationDelivery(key: $0.key, token: token, notification: $0.notification)
            }
        }
    }

    /// Removes a notification that was handed out, with its token's expired ones.
    /// - Returns: whether it was still queued.
    @discardableResult
    public func removeNotification(_ delivery: NotificationDelivery) throws -> Bool {
        let time = now
        return try environment(delivery.token.container, delivery.token.environment).write { writer in
            try writer.removeNotification(delivery.key, of: delivery.token.token, expiredBefore: time)
        }
    }

    /// How many notifications wait for each push token of a container's environment.
    public func queuedNotificationCounts(_ container: ContainerIdentifier, _ environment: Environment) throws -> [String: Int] {
        try self.environment(container, environment).read { try $0.queuedNotificationCounts() }
    }
}
