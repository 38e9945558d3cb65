import CloudKitWire
import CloudStore

/// The notifications of a container's environment as an operator debugs them: every
/// subscription with its filter in words, who holds it, when it last fired and how many
/// notifications it queued; every push token users hold with its user, its device's last poll
/// and the notifications waiting for it, each as the web courier would hand it out.
public struct NotificationsView: ManagementResult, Equatable {
    /// One subscription.
    public struct Subscription: Sendable, Equatable {
        /// The subscription, its database and subscriber, as the subscriptions listing has it.
        public var entry: SubscriptionsView.Entry
        /// The subscriber's sign-in name, when known.
        public var userName: String?
        /// When it last fired, in milliseconds since 1970; `nil` if never.
        public var lastFired: Int64?
        /// How many notifications it queued, all told.
        public var queued: Int64
    }

    /// One notification waiting in a push token's queue.
    public struct Notification: Sendable, Equatable {
        /// Its identifier (`nid`).
        public var notificationID: String
        /// The subscription that produced it.
        public var subscriptionID: String
        /// The database that changed: `public`, `private` or `shared`.
        public var database: String
        /// `query`, `zone` or `database`.
        public var kind: String
        /// For a query notification: the record.
        public var recordName: String?
        /// For a query notification: `create`, `update` or `delete`.
        public var firesOn: String?
        /// The zone, for a query or zone notification.
        public var zoneName: String?
        /// The zone's owner, for a query or zone notification.
        public var zoneOwner: String?
        /// When it was queued, in milliseconds since 1970.
        public var created: Int64
        /// The JSON the web courier hands out for it.
        public var payload: JSONValue
        /// Whether the record's field values were left out (production, private or shared database).
        public var contentsWithheld: Bool
    }

    /// One push token and its queue.
    public struct Queue: Sendable, Equatable {
        /// The token's ID.
        public var id: String
        /// Its first characters.
        public var token: String
        /// Its holder's user record name.
        public var userRecordName: String?
        /// Its holder's sign-in name, when known.
        public var userName: String?
        /// When it was created, in milliseconds since 1970.
        public var created: Int64
        /// When it was last used (created, registered or polled).
        public var lastUsed: Int64
        /// When the courier was last polled with it, to the minute; `nil` if never.
        public var lastPolled: Int64?
        /// How many notifications wait for it.
        public var waiting: Int64
        /// The oldest of them, in the order its next polls take them.
        public var notifications: [Notification]
    }

    /// The subscriptions.
    public var subscriptions: [Subscription]
    /// The push tokens users hold, with their queues.
    public var queues: [Queue]

    init(subscriptions: [Subscription], queues: [Queue]) {
        self.subscriptions = subscriptions
        self.queues = queues
    }

    public var json: JSONValue {
        [
            "subscriptions": .array(
                subscriptions.map { held in
                    var object: JSONObject = [
                        "database": .string(held.entry.database), "owner": .string(held.entry.owner),
                        "userRecordName": .string(held.entry.userRecordName), "userName": ManagementActions.optional(held.userName),
                        "lastFired": held.lastFired.map(JSONValue.integer) ?? .null, "queued": .integer(held.queued),
                        "watches": .string(held.entry.watches),
                    ]
                    object["subscription"] = .object(held.entry.subscription)
                    return .object(object)
                }),
            "pushTokens": .array(
                queues.map { queue in
                    [
                        "id": .string(queue.id), "token": .string(queue.token),
                        "userRecordName": ManagementActions.optional(queue.userRecordName),
                        "userName": ManagementActions.optional(queue.userName), "created": .integer(queue.created),
                        "lastUsed": .integer(queue.lastUsed), "lastPolled": queue.lastPolled.map(JSONValue.integer) ?? .null,
                        "waiting": .integer(queue.waiting),
                        "notifications": .array(
                            queue.notifications.map { notification in
                                [
                                    "notificationID": .string(notification.notificationID),
                                    "subscriptionID": .string(notification.subscriptionID), "database": .string(notification.database),
                                    "kind": .string(notification.kind), "recordName": ManagementActions.optional(notification.recordName),
                                    "firesOn": ManagementActions.optional(notification.firesOn),
                                    "zoneName": ManagementActions.optional(notification.zoneName),
                                    "zoneOwner": ManagementActions.optional(notification.zoneOwner),
                                    "created": .integer(notification.created),
                                    "payload": notification.payload, "contentsWithheld": .bool(notification.contentsWithheld),
                                ]
                            }),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let answer = try AnswerFields(json)
        subscriptions = try answer.array("subscriptions") { value in
            let fields = try AnswerFields(value)
            guard let subscription = try fields.value("subscription").objectValue else {
                throw MalformedAnswer(description: "The server's answer has no object \"subscription\"")
            }
            return Subscription(
                entry: SubscriptionsView.Entry(
                    database: try fields.string("database"), owner: try fields.string("owner"),
                    userRecordName: try fields.string("userRecordName"), subscription: subscription),
                userName: try fields.optionalString("userName"), lastFired: try fields.optionalInt64("lastFired"),
                queued: try fields.int64("queued"))
        }
        queues = try answer.array("pushTokens") { value in
            let fields = try AnswerFields(value)
            return Queue(
                id: try fields.string("id"), token: try fields.string("token"), userRecordName: try fields.optionalString("userRecordName"),
                userName: try fields.optionalString("userName"), created: try fields.int64("created"),
                lastUsed: try fields.int64("lastUsed"),
                lastPolled: try fields.optionalInt64("lastPolled"), waiting: try fields.int64("waiting"),
                notifications: try fields.array("notifications") { value in
                    let notification = try AnswerFields(value)
                    return Notification(
                        notificationID: try notification.string("notificationID"),
                        subscriptionID: try notification.string("subscriptionID"),
                        database: try notification.string("database"), kind: try notification.string("kind"),
                        recordName: try notification.optionalString("recordName"), firesOn: try notification.optionalString("firesOn"),
                        zoneName: try notification.optionalString("zoneName"), zoneOwner: try notification.optionalString("zoneOwner"),
                        created: try notification.int64("created"), payload: try notification.value("payload"),
                        contentsWithheld: try notification.bool("contentsWithheld"))
                })
        }
    }
}

extension SubscriptionsView.Entry {
    /// What the subscription watches, in words: the record type, its filter as the
    /// subscription holds it, what it fires on and where; or the zone; or the database.
    public var watches: String {
        switch subscriptionType {
        case "query":
            let wire = JSONValue.object(subscription)
            let filters = (wire["query"]?["filterBy"]?.arrayValue ?? []).map { filter -> String in
                let field = filter["fieldName"]?.stringValue ?? "?"
                let comparator = filter["comparator"]?.stringValue ?? "?"
                let value = filter["fieldValue"]?["value"].map { String(decoding: $0.serialized(), as: UTF8.self) } ?? "?"
                return "\(field) \(comparator) \(value)"
            }
            return (recordType ?? "") + (filters.isEmpty ? "" : " where " + filters.joined(separator: " and ")) + " in "
                + (zoneName.map { "zone \($0)" } ?? "every zone") + ", on " + firesOn.joined(separator: ", ")
                + (firesOnce ? ", once" : "")
        case "zone": return "every change in zone \(zoneName ?? "")"
        default: return "every zone of the database"
        }
    }
}
