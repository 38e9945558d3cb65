import CloudKitWire
import CloudStore

/// The delivery tracer's answer for one committed change: the change, then every subscription
/// weighed against it with whether it fired, the rule that kept it from firing, and what became
/// of its notification for each push token of its subscriber.
public struct DeliveryTraceView: ManagementResult, Equatable {
    /// The change traced.
    public struct Change: Sendable, Equatable {
        /// `public`, `private` or `shared`.
        public var database: String
        /// The database's owner (user record name); empty for the public database.
        public var owner: String
        /// The zone.
        public var zoneName: String
        /// The record.
        public var recordName: String
        /// Its type.
        public var recordType: String
        /// Its position in the zone's change log.
        public var sequence: Int64
        /// `create`, `update` or `delete`.
        public var kind: String
        /// When it committed, in milliseconds since 1970.
        public var time: Int64
        /// Who made it, when the log says.
        public var modifiedBy: String?
        /// Whether the record's fields were there to weigh the filters against.
        public var recordKnown: Bool
    }

    /// One subscription weighed against the change.
    public struct Subscription: Sendable, Equatable {
        /// The subscription, its database and subscriber, as the subscriptions listing has it.
        public var entry: SubscriptionsView.Entry
        /// The subscriber's sign-in name, when known.
        public var userName: String?
        /// Whether it fired for the change.
        public var matched: Bool
        /// The rule that decided: `matched`, `recordType`, `zone`, `firesOn`, `permission`,
        /// `filters`, `queryNoLongerRuns` or `filtersNotWeighed`.
        public var rule: String
        /// What became of the change for it: `not matched`, `skipped`, `queued`, `coalesced`,
        /// `delivered` or `expired`.
        public var fate: String
        /// Why, in a sentence.
        public var why: String
        /// For a subscriber who may not read the record in the public database: the access
        /// policy's decision with every grant weighed.
        public var access: AccessDecisionView?
        /// The notifications the change's transaction queued for it.
        public var notifications: [Notification]
    }

    /// A notification queued for the change.
    public struct Notification: Sendable, Equatable {
        /// The record whose change made it (another one's, when coalesced); `nil` when not kept.
        public var subject: String?
        /// When it was queued, in milliseconds since 1970.
        public var created: Int64
        /// When it expires or expired.
        public var expires: Int64
        /// When it was removed at its expiry; `nil` while queued.
        public var removed: Int64?
        /// What became of it for each push token.
        public var deliveries: [Delivery]
    }

    /// What became of a notification for one push token.
    public struct Delivery: Sendable, Equatable {
        /// The token's ID, as `push-tokens list` prints it.
        public var tokenID: String
        /// Whether the subscriber still holds it.
        public var held: Bool
        /// `fetched`, `waiting`, `expired` or `not for this token`.
        public var fate: String
        /// `long poll` or `event stream`, when fetched and noted.
        public var channel: String?
        /// When it was fetched, when noted.
        public var time: Int64?
    }

    /// The change.
    public var change: Change
    /// The subscriptions weighed.
    public var subscriptions: [Subscription]

    init(change: Change, subscriptions: [Subscription]) {
        self.change = change
        self.subscriptions = subscriptions
    }

    public var json: JSONValue {
        [
            "change": [
                "database": .string(change.database), "owner": .string(change.owner), "zoneName": .string(change.zoneName),
                "recordName": .string(change.recordName), "recordType": .string(change.recordType), "sequence": .integer(change.sequence),
                "kind": .string(change.kind), "time": .integer(change.time), "modifiedBy": ManagementActions.optional(change.modifiedBy),
                "recordKnown": .bool(change.recordKnown),
            ],
            "subscriptions": .array(
                subscriptions.map { traced in
                    var object: JSONObject = [
                        "database": .string(traced.entry.database), "owner": .string(traced.entry.owner),
                        "userRecordName": .string(traced.entry.userRecordName), "userName": ManagementActions.optional(traced.userName),
                        "watches": .string(traced.entry.watches), "matched": .bool(traced.matched), "rule": .string(traced.rule),
                        "fate": .string(traced.fate), "why": .string(traced.why), "access": traced.access?.json ?? .null,
                        "notifications": .array(traced.notifications.map(Self.json)),
                    ]
                    object["subscription"] = .object(traced.entry.subscription)
                    return .object(object)
                }),
        ]
    }

    private static func json(_ notification: Notification) -> JSONValue {
        [
            "subject": ManagementActions.optional(notification.subject), "created": .integer(notification.created),
            "expires": .integer(notification.expires), "removed": notification.removed.map(JSONValue.integer) ?? .null,
            "deliveries": .array(
                notification.deliveries.map { delivery in
                    [
                        "tokenID": .string(delivery.tokenID), "held": .bool(delivery.held), "fate": .string(delivery.fate),
                        "channel": ManagementActions.optional(delivery.channel), "time": delivery.time.map(JSONValue.integer) ?? .null,
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let answer = try AnswerFields(json)
        let change = try AnswerFields(try answer.value("change"))
        self.change = Change(
            database: try change.string("database"), owner: try change.string("owner"), zoneName: try change.string("zoneName"),
            recordName: try change.string("recordName"), recordType: try change.string("recordType"),
            sequence: try change.int64("sequence"), kind: try change.string("kind"), time: try change.int64("time"),
            modifiedBy: try change.optionalString("modifiedBy"), recordKnown: try change.bool("recordKnown"))
        subscriptions = try answer.array("subscriptions") { value in
            let fields = try AnswerFields(value)
            guard let subscription = try fields.value("subscription").objectValue else {
                throw MalformedAnswer(description: "The server's answer has no object \"subscription\"")
            }
            let access = try fields.value("access")
            return Subscription(
                entry: SubscriptionsView.Entry(
                    database: try fields.string("database"), owner: try fields.string("owner"),
                    userRecordName: try fields.string("userRecordName"), subscription: subscription),
                userName: try fields.optionalString("userName"), matched: try fields.bool("matched"), rule: try fields.string("rule"),
                fate: try fields.string("fate"), why: try fields.string("why"),
                access: access.isNull ? nil : try AccessDecisionView(json: access),
                notifications: try fields.array("notifications") { value in
                    let notification = try AnswerFields(value)
                    return Notification(
                        subject: try notification.optionalString("subject"), created: try notification.int64("created"),
                        expires: try notification.int64("expires"), removed: try notification.optionalInt64("removed"),
                        deliveries: try notification.array("deliveries") { value in
                            let delivery = try AnswerFields(value)
                            return Delivery(
                                tokenID: try delivery.string("tokenID"), held: try delivery.bool("held"), fate: try delivery.string("fate"),
                                channel: try delivery.optionalString("channel"), time: try delivery.optionalInt64("time"))
                        })
                })
        }
    }
}
