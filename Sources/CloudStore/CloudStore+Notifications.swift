/// A queued notification as the courier takes it: the notification and where it is queued.
public struct NotificationDelivery: Hashable, Sendable {
    /// Storage's key of the queue entry.
    let key: Int64
    /// When the entry expires, kept so that a put-back restores it as it was.
    let expires: Int64
    /// The push token it is queued for.
    public let token: PushToken
    /// The notification.
    public let notification: QueuedNotification

    init(_ stored: StoredNotification, token: PushToken) {
        key = stored.key
        expires = stored.expires
        self.token = token
        notification = stored.notification
    }

    /// The entry as storage holds it.
    var stored: StoredNotification { StoredNotification(key: key, token: token.token, expires: expires, notification: notification) }
}

extension CloudStore {
    // MARK: - Queued notifications

    /// Calls `listener`, after each commit that queued notifications, with the push tokens that
    /// got some; from the committing thread, so it must be quick.
    public func onNotificationsQueued(_ listener: @escaping @Sendable (Set<String>) -> Void) {
        notificationListeners.withLock { $0.append(listener) }
    }

    /// Calls `listener` when notifications may have been queued without this process hearing
    /// of it (another process's, on PostgreSQL, while its listening connection was down): every
    /// waiter should read its queue again.
    public func onNotificationsMayHaveBeenMissed(_ listener: @escaping @Sendable () -> Void) {
        recheckListeners.withLock { $0.append(listener) }
    }

    /// Tells the listeners, and other processes sharing the database, which push tokens got notifications.
    func notificationsQueued(_ tokens: Set<String>) {
        guard !tokens.isEmpty else { return }
        wakeNotificationListeners(tokens)
        backend.crossProcess?.tell(tokens: Array(tokens))
    }

    /// Tells this process's listeners which push tokens got notifications.
    func wakeNotificationListeners(_ tokens: Set<String>) {
        for listener in notificationListeners.withLock({ $0 }) { listener(tokens) }
    }

    /// The generator of one write transaction's notifications in `database`.
    /// `time` is the transaction's, which its change log entries carry too (by default, now):
    /// the delivery tracer finds a change's notifications by it.
    func notifier(_ container: ContainerIdentifier, _ environment: Environment, _ database: DatabaseID, at time: Int64? = nil)
        -> NotificationGenerator
    {
        let credentials = credentials
        return NotificationGenerator(
            container: container, environment: environment, database: database, now: time ?? now,
            lifetime: configuration.notificationLifetime,
            pushTokens: { user in try credentials.pushTokens(of: user, in: container, environment).map(\.token) })
    }

    /// The oldest notification queued for `token` that has not expired, left in the queue until
    /// ``removeNotifications(_:)`` says it was handed out.
    public func oldestNotification(for token: PushToken) throws -> NotificationDelivery? {
        try oldestNotifications(for: [token])[token.token]
    }

    /// The oldest notification of each token, read together: what the courier hands out at once
    /// when one change notifies many waiting clients. A token no user holds has none.
    public func oldestNotifications(for tokens: [PushToken]) throws -> [String: NotificationDelivery] {
        let time = now
        var found: [String: NotificationDelivery] = [:]
        for (key, group) in Dictionary(grouping: tokens, by: \.environmentKey) {
            let deliveries = try environment(key.container, key.environment).read { reader in
                try group.compactMap { token in
                    try token.queue.flatMap { try reader.oldestNotification(for: $0, now: time) }.map {
                        NotificationDelivery($0, token: token)
                    }
                }
            }
            for delivery in deliveries { found[delivery.token.token] = delivery }
        }
        return found
    }

    /// Takes the oldest notification of each token out of its queue, for this caller alone: a
    /// caller in another process claiming the same tokens at the same time gets other entries,
    /// so no notification is handed out twice. One transaction per environment, however many
    /// tokens. What could not be handed out goes back with ``returnNotifications(_:)``. A token
    /// revoked (or gone idle) since the caller looked it up gets nothing: a poll or stream
    /// opened before a sign-out receives nothing after it.
    /// - Returns: the claimed notification of each token that had one, by token.
    /// - Parameter channels: how the caller hands each token's notification out (by token),
    ///   noted with the claim for the delivery tracer.
    public func claimNotifications(for tokens: [PushToken], channels: [String: NotificationChannel] = [:]) throws -> [String:
        NotificationDelivery]
    {
        let time = now
        var claimed: [String: NotificationDelivery] = [:]
        // As stored now, not as the caller found them; one that idled out is handed nothing.
        let live = try credentials.pushTokens(among: Array(Set(tokens.map(\.token)))).filter { !isIdle($0, at: time) }
        for (key, group) in Dictionary(grouping: live, by: \.environmentKey) {
            let byToken = Dictionary(group.map { ($0.token, $0) }, uniquingKeysWith: { first, _ in first })
            let queues = byToken.values.compactMap { token in
                token.queue.map { queue in
                    var queue = queue
                    queue.channel = channels[token.token]
                    return queue
                }
            }
            guard !queues.isEmpty else { continue }
            let entries = try environment(key.container, key.environment).write { writer in
                try writer.claimNotifications(for: queues, now: time)
            }
            for entry in entries {
                guard let token = byToken[entry.token] else { continue }
                claimed[entry.token] = NotificationDelivery(entry, token: token)
            }
        }
        return claimed
    }

    /// Puts claimed notifications that no one took (the poll had ended, the stream had closed)
    /// back in their queues, each in the place it had, one transaction per environment; then
    /// wakes the tokens' waiters, here and in other processes, as a new notification would.
    public func returnNotifications(_ deliveries: [NotificationDelivery]) throws {
        for (key, group) in Dictionary(grouping: deliveries, by: \.token.environmentKey) {
            let entries = group.map(\.stored)
            try environment(key.container, key.environment).write { writer in try writer.unclaimNotifications(entries) }
            notificationsQueued(Set(entries.map(\.token)))
        }
    }

    /// Removes notifications that were handed out from their tokens' queues, one transaction
    /// per environment.
    /// - Returns: how many were still queued.
    @discardableResult
    public func removeNotifications(_ deliveries: [NotificationDelivery]) throws -> Int {
        var removed = 0
        for (key, group) in Dictionary(grouping: deliveries, by: \.token.environmentKey) {
            removed += try environment(key.container, key.environment).write { writer in try writer.removeNotifications(group.map(\.stored))
            }
        }
        return removed
    }

    /// How long what became of a notification removed at its expiry is kept for the delivery
    /// tracer, in milliseconds: a week.
    public static let notificationOutcomeRetention: Int64 = 7 * 86_400_000

    /// Removes, in every container's environments, the notifications whose lifetime ended with
    /// no poll taking them (a token nobody polls any more), keeping what became of each for
    /// ``notificationOutcomeRetention``. The server runs it periodically.
    /// - Returns: how many went.
    @discardableResult
    public func removeExpiredNotifications() throws -> Int {
        let time = now
        var removed = 0
        for container in try containers() {
            for environment in Environment.allCases {
                removed += try self.environment(container.identifier, environment).write {
                    try $0.removeExpiredNotifications(before: time, forgettingTrailsBefore: time - Self.notificationOutcomeRetention)
                }
            }
        }
        return removed
    }

    /// How many notification rows a container's environment queues, each once for its subscriber.
    func queuedNotificationRowCount(_ container: ContainerIdentifier, _ environment: Environment) throws -> Int {
        try self.environment(container, environment).read { try $0.queuedNotificationRowCount() }
    }

    /// Where a push token's queue starts: every notification before this key was handed to it.
    func notificationCursor(of token: PushToken) throws -> Int64? {
        try environment(token.container, token.environment).read { try $0.notificationCursor(of: token.token) }
    }

    /// How many notifications wait for each push token of a container's environment that has any.
    public func queuedNotificationCounts(_ container: ContainerIdentifier, _ environment: Environment) throws -> [String: Int] {
        let tokens = try credentials.boundPushTokens(in: container, environment)
        let time = now
        return try self.environment(container, environment).read { reader in
            var counts: [String: Int] = [:]
            for token in tokens {
                guard let queue = token.queue else { continue }
                let count = try reader.queuedNotificationCount(for: queue, now: time)
                if count > 0 { counts[token.token] = count }
            }
            return counts
        }
    }
}

extension PushToken {
    /// The environment whose queue holds the token's notifications.
    var environmentKey: EnvironmentKey { EnvironmentKey(container: container, environment: environment) }

    /// The token's queue: its user's notifications since it was bound; none while no user holds it.
    var queue: PushTokenQueue? {
        guard let user = userRecordName else { return nil }
        return PushTokenQueue(token: token, user: user, since: bound ?? created)
    }
}
