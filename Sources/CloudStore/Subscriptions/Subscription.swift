/// A subscription: what changes of a database a user wants to be told of, and what the
/// notification should say.
///
/// It belongs to the user, not to the session that made it, and stays when that session ends:
/// its notifications reach only the push tokens the user holds, and every token ends with the
/// session that created or registered it. A subscription made in a stolen session so tells the
/// thief nothing once the session is signed out (its token went with it).
public struct Subscription: Hashable, Sendable {
    /// What a subscription watches.
    public enum Kind: Hashable, Sendable {
        /// Records of a type that match a query, in one zone or in every zone of the database.
        case query(Query, zoneName: String?, firesOn: Set<FiresOn>, firesOnce: Bool)
        /// Every change of the records of one zone.
        case zone(zoneName: String)
        /// Every change of the database's zones.
        case database
    }

    /// What happens to a record that makes a query subscription fire.
    public enum FiresOn: String, Hashable, Sendable, Codable, CaseIterable {
        case create
        case update
        case delete
    }

    /// The subscription's identifier, unique per user and database.
    public var subscriptionID: String
    /// What it watches.
    public var kind: Kind
    /// What the notification says.
    public var notificationInfo: NotificationInfo?

    /// Creates a subscription.
    public init(subscriptionID: String, kind: Kind, notificationInfo: NotificationInfo? = nil) {
        self.subscriptionID = subscriptionID
        self.kind = kind
        self.notificationInfo = notificationInfo
    }

    /// The subscription type's name on the wire: `query`, `zone` or `database`.
    public var typeName: String {
        switch kind {
        case .query: "query"
        case .zone: "zone"
        case .database: "database"
        }
    }
}

/// What a notification shows: the alert, sound and badge of CloudKit's Notification Info
/// Dictionary, and the record fields a query notification carries.
public struct NotificationInfo: Hashable, Sendable {
    /// The alert's text.
    public var alertBody: String?
    /// A localization key for the alert's text.
    public var alertLocalizationKey: String?
    /// Values for the localized text's placeholders.
    public var alertLocalizationArgs: [String]?
    /// A localization key for the alert's action button.
    public var alertActionLocalizationKey: String?
    /// The image shown on launch from the notification.
    public var alertLaunchImage: String?
    /// The sound played.
    public var soundName: String?
    /// Whether the app's badge is raised.
    public var shouldBadge: Bool
    /// Whether the notification wakes the app with `content-available`.
    public var shouldSendContentAvailable: Bool
    /// The notification's category.
    public var category: String?
    /// Fields of the record a query notification carries (`af`).
    public var additionalFields: [String]?

    /// Creates notification info.
    public init(
        alertBody: String? = nil, alertLocalizationKey: String? = nil, alertLocalizationArgs: [String]? = nil,
        alertActionLocalizationKey: String? = nil, alertLaunchImage: String? = nil, soundName: String? = nil, shouldBadge: Bool = false,
        shouldSendContentAvailable: Bool = false, category: String? = nil, additionalFields: [String]? = nil
    ) {
        self.alertBody = alertBody
        self.alertLocalizationKey = alertLocalizationKey
        self.alertLocalizationArgs = alertLocalizationArgs
        self.alertActionLocalizationKey = alertActionLocalizationKey
        self.alertLaunchImage = alertLaunchImage
        self.soundName = soundName
        self.shouldBadge = shouldBadge
        self.shouldSendContentAvailable = shouldSendContentAvailable
        self.category = category
        self.additionalFields = additionalFields
    }
}

/// One operation of a `subscriptions/modify` request.
public struct SubscriptionOperation: Hashable, Sendable {
    /// Create, update (replace) or delete.
    public enum Kind: String, Hashable, Sendable {
        case create
        case update
        case delete
    }

    /// What the operation does.
    public var kind: Kind
    /// The subscription; for a delete only its identifier matters.
    public var subscription: Subscription

    /// Creates an operation.
    public init(_ kind: Kind, _ subscription: Subscription) {
        self.kind = kind
        self.subscription = subscription
    }
}

/// The outcome of one subscription lookup or operation.
public enum SubscriptionResult: Hashable, Sendable {
    /// The subscription, as found or saved.
    case subscription(Subscription)
    /// The subscription was deleted.
    case deleted(subscriptionID: String)
    /// The lookup or operation failed for this subscription.
    case failure(subscriptionID: String, CloudStoreError)
}
