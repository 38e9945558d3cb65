/// A notification waiting in a push token's queue until the web courier hands it out: what
/// changed, for which subscription, and what the subscription asked the notification to show.
public struct QueuedNotification: Hashable, Sendable {
    /// What the notification is about.
    public enum Reason: Hashable, Sendable {
        /// A record matching a query subscription was created, updated or deleted; `fields` are
        /// the record's values of the notification info's `additionalFields`.
        case query(recordName: String, firesOn: Subscription.FiresOn, zoneID: ZoneID, fields: [String: FieldValue])
        /// Records of a zone changed.
        case zone(ZoneID)
        /// Zones of the database changed.
        case database
    }

    /// The notification's identifier: one change that fires several subscriptions gives each
    /// the same one, as CloudKit does.
    public var notificationID: String
    /// The subscription that fired.
    public var subscriptionID: String
    /// The container.
    public var container: ContainerIdentifier
    /// The environment.
    public var environment: Environment
    /// The subscriber.
    public var userRecordName: String
    /// The database that changed.
    public var databaseScope: DatabaseScope
    /// What changed.
    public var reason: Reason
    /// What the notification shows.
    public var notificationInfo: NotificationInfo?
    /// When the change committed, in milliseconds since 1970.
    public var created: Int64

    /// Creates a notification.
    public init(
        notificationID: String, subscriptionID: String, container: ContainerIdentifier, environment: Environment, userRecordName: String,
        databaseScope: DatabaseScope, reason: Reason, notificationInfo: NotificationInfo?, created: Int64
    ) {
        self.notificationID = notificationID
        self.subscriptionID = subscriptionID
        self.container = container
        self.environment = environment
        self.userRecordName = userRecordName
        self.databaseScope = databaseScope
        self.reason = reason
        self.notificationInfo = notificationInfo
        self.created = created
    }
}
