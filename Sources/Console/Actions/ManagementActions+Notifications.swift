import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Notifications: subscriptions with their firings, push tokens with their queues

    /// The notifications of a container's environment: every subscription with its filter, its
    /// subscriber by name, when it last fired and how many it queued; every push token users
    /// hold (or the one whose id is `pushTokenID`) with its user, last poll and the oldest
    /// notifications waiting for it, each with the payload the web courier hands out. In
    /// production the notifications of private and shared databases come without the records'
    /// field values: the store withholds them.
    public func notifications(
        in container: ContainerIdentifier, environment: Environment, pushTokenID: String? = nil,
        limit: Int = CloudStore.inspectedNotificationLimit, as actor: OperatorIdentity
    ) throws -> NotificationsView {
        let identifier = try existingContainer(container)
        let names = try userNames(identifier)
        let queues = try store.queuedNotifications(identifier, environment, pushTokenID: pushTokenID, limit: limit, as: actor.caller)
        let held = try store.subscriptions(identifier, environment)
        return NotificationsView(
            subscriptions: held.map { entry in
                NotificationsView.Subscription(
                    entry: SubscriptionsView.Entry(
                        database: entry.database.scope.rawValue, owner: entry.database.owner, userRecordName: entry.userRecordName,
                        subscription: SubscriptionWire.json(entry.subscription, owner: entry.database.owner).objectValue ?? [:]),
                    userName: names[entry.userRecordName], lastFired: entry.lastFired, queued: entry.queued)
            },
            queues: queues.map { queue in
                let token = queue.token
                return NotificationsView.Queue(
                    id: token.id, token: Self.tokenPrefix(token.token), userRecordName: token.userRecordName,
                    userName: token.userRecordName.flatMap { names[$0] }, created: token.created, lastUsed: token.lastUsed,
                    lastPolled: token.lastPolled, waiting: Int64(queue.waiting), notifications: queue.notifications.map(Self.notification))
            })
    }

    /// A waiting notification for the Notifications view: its metadata, and its payload as the courier hands it out.
    private static func notification(_ inspected: InspectedNotification) -> NotificationsView.Notification {
        let notification = inspected.notification
        var view = NotificationsView.Notification(
            notificationID: notification.notificationID, subscriptionID: notification.subscriptionID,
            database: notification.databaseScope.rawValue, kind: "database", created: notification.created,
            payload: NotificationWire.json(notification), contentsWithheld: inspected.contentsWithheld)
        switch notification.reason {
        case .query(let recordName, let firesOn, let zoneID, _):
            (view.kind, view.recordName, view.firesOn) = ("query", recordName, firesOn.rawValue)
            (view.zoneName, view.zoneOwner) = (zoneID.zoneName, zoneID.ownerRecordName)
        case .zone(let zoneID):
            (view.kind, view.zoneName, view.zoneOwner) = ("zone", zoneID.zoneName, zoneID.ownerRecordName)
        case .database:
            break
        }
        return view
    }
}
