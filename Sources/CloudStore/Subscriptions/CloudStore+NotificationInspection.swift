/// A queued notification as an operator inspects it.
public struct InspectedNotification: Hashable, Sendable {
    /// The notification, as the courier would hand it out, less what ``contentsWithheld`` says.
    public var notification: QueuedNotification
    /// Whether the record's field values it carries (`additionalFields`) were left out: in
    /// production, a private or shared database's contents are its users' alone.
    public var contentsWithheld: Bool
}

/// A push token's queue as an operator inspects it: the token, how many notifications wait for
/// it, and the oldest of them, in the order its next polls take them.
public struct InspectedNotificationQueue: Hashable, Sendable {
    /// The push token, with its user and when the courier was last polled with it.
    public var token: PushToken
    /// How many notifications wait for it.
    public var waiting: Int
    /// The oldest of them, at most the limit asked for.
    public var notifications: [InspectedNotification]
}

extension CloudStore {
    // MARK: - Inspecting notification queues (operators)

    /// The most notifications of one queue an inspection lists by default.
    public static let inspectedNotificationLimit = 20

    /// The push tokens users hold in a container's environment (or the one whose ``PushToken/id``
    /// is `pushTokenID`), each with its waiting notifications, oldest first, up to `limit` each:
    /// what the courier will hand its device next. In production, the notifications of a
    /// private or shared database carry their metadata only (identifiers, subscription, zone,
    /// record name, times), never the record's field values, as every way into those databases
    /// keeps their contents to their users.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` for a caller who is not an operator;
    ///   ``CloudStoreError/notFound(_:)`` for an unknown container, or a token id it does not hold.
    public func queuedNotifications(
        _ container: ContainerIdentifier, _ environment: Environment, pushTokenID: String? = nil,
        limit: Int = CloudStore.inspectedNotificationLimit, as caller: Caller
    ) throws -> [InspectedNotificationQueue] {
        guard case .operator = caller else {
            throw CloudStoreError.accessDenied("Only operators read the notifications queued for users' devices")
        }
        var tokens = try pushTokens(container, environment)
        if let pushTokenID {
            tokens = tokens.filter { $0.id == pushTokenID }
            guard !tokens.isEmpty else { throw CloudStoreError.notFound("No push token \(pushTokenID) in \(container) \(environment)") }
        }
        let (time, count) = (now, min(max(limit, 0), 1000))
        return try self.environment(container, environment).read { reader in
            try tokens.map { token in
                guard let queue = token.queue else { return InspectedNotificationQueue(token: token, waiting: 0, notifications: []) }
                let waiting = try reader.queuedNotificationCount(for: queue, now: time)
                let entries = waiting == 0 || count == 0 ? [] : try reader.pendingNotifications(for: queue, now: time, limit: count)
                return InspectedNotificationQueue(
                    token: token, waiting: waiting, notifications: entries.map { Self.inspected($0.notification, in: environment) })
            }
        }
    }

    /// A notification as an operator may read it in `environment`.
    private static func inspected(_ notification: QueuedNotification, in environment: Environment) -> InspectedNotification {
        guard environment == .production, notification.databaseScope != .public else {
            return InspectedNotification(notification: notification, contentsWithheld: false)
        }
        var metadata = notification
        if case .query(let recordName, let firesOn, let zoneID, _) = notification.reason {
            metadata.reason = .query(recordName: recordName, firesOn: firesOn, zoneID: zoneID, fields: [:])
        }
        return InspectedNotification(notification: metadata, contentsWithheld: true)
    }
}
