import CloudKitWire
import CloudStore

/// Every subscription of a container's environment, with its subscriber and database.
public struct SubscriptionsView: ManagementResult, Equatable {
    /// One subscription.
    public struct Entry: Sendable, Equatable {
        /// The database it watches.
        public var database: String
        /// The database's owner.
        public var owner: String
        /// The subscriber.
        public var userRecordName: String
        /// The subscription as CloudKit's JSON describes it (`subscriptionID`, `subscriptionType`, `query`, `zoneID`, …).
        public var subscription: JSONObject
        /// Its ID.
        public var subscriptionID: String
        /// `query`, `zone` or `database`.
        public var subscriptionType: String
        /// The record type a query subscription watches.
        public var recordType: String?
        /// The zone it watches, when one.
        public var zoneName: String?
        /// What a query subscription fires on (`create`, `update`, `delete`).
        public var firesOn: [String]
        /// Whether a query subscription filters.
        public var isFiltered: Bool
        /// Whether a query subscription fires once.
        public var firesOnce: Bool

        /// An entry from its parts, reading what pages and commands show from CloudKit's JSON.
        init(database: String, owner: String, userRecordName: String, subscription: JSONObject) {
            self.database = database
            self.owner = owner
            self.userRecordName = userRecordName
            self.subscription = subscription
            let wire = JSONValue.object(subscription)
            subscriptionID = wire["subscriptionID"]?.stringValue ?? ""
            subscriptionType = wire["subscriptionType"]?.stringValue ?? ""
            recordType = wire["query"]?["recordType"]?.stringValue
            zoneName = wire["zoneID"]?["zoneName"]?.stringValue
            firesOn = (wire["firesOn"]?.arrayValue ?? []).compactMap(\.stringValue)
            isFiltered = !(wire["query"]?["filterBy"]?.arrayValue?.isEmpty ?? true)
            firesOnce = wire["firesOnce"] == true
        }
    }

    /// The subscriptions.
    public var subscriptions: [Entry]

    init(_ subscriptions: [Entry]) { self.subscriptions = subscriptions }

    public var json: JSONValue {
        [
            "subscriptions": .array(
                subscriptions.map { entry in
                    var object: JSONObject = [
                        "database": .string(entry.database), "owner": .string(entry.owner), "userRecordName": .string(entry.userRecordName),
                    ]
                    for (key, value) in entry.subscription { object[key] = value }
                    return .object(object)
                })
        ]
    }

    public init(json: JSONValue) throws {
        subscriptions = try AnswerFields(json).array("subscriptions") { value in
            let fields = try AnswerFields(value)
            var subscription = value.objectValue ?? JSONObject()
            for key in ["database", "owner", "userRecordName"] { subscription[key] = nil }
            return Entry(
                database: try fields.string("database"), owner: try fields.string("owner"),
                userRecordName: try fields.string("userRecordName"),
                subscription: subscription)
        }
    }
}

/// A subscription deleted.
public struct SubscriptionDeletion: ManagementResult, Equatable {
    /// Its ID.
    public var subscriptionID: String

    init(subscriptionID: String) { self.subscriptionID = subscriptionID }

    public var json: JSONValue { ["subscriptionID": .string(subscriptionID), "deleted": true] }

    public init(json: JSONValue) throws { subscriptionID = try AnswerFields(json).string("subscriptionID") }
}

/// The push tokens with notifications waiting, and how many.
public struct NotificationQueuesView: ManagementResult, Equatable {
    /// One token's queue.
    public struct Queue: Sendable, Equatable {
        /// The token's first characters.
        public var token: String
        /// Its holder, when bound to one.
        public var userRecordName: String?
        /// The notifications waiting.
        public var waiting: Int64
    }

    /// The queues.
    public var queues: [Queue]

    init(_ queues: [Queue]) { self.queues = queues }

    public var json: JSONValue {
        [
            "queues": .array(
                queues.map { queue in
                    [
                        "token": .string(queue.token), "userRecordName": ManagementActions.optional(queue.userRecordName),
                        "waiting": .integer(queue.waiting),
                    ]
                })
        ]
    }

    public init(json: JSONValue) throws {
        queues = try AnswerFields(json).array("queues") { value in
            let queue = try AnswerFields(value)
            return Queue(
                token: try queue.string("token"), userRecordName: try queue.optionalString("userRecordName"),
                waiting: try queue.int64("waiting"))
        }
    }
}

/// The push tokens users hold, each named by its ID and showing its first characters only.
public struct PushTokensView: ManagementResult, Equatable {
    /// One push token.
    public struct Token: Sendable, Equatable {
        /// Its ID.
        public var id: String
        /// Its first characters.
        public var token: String
        /// Its holder's user record name, when bound.
        public var userRecordName: String?
        /// Its holder's sign-in name, when known.
        public var userName: String?
        /// The APNs environment it was registered for.
        public var apnsEnvironment: String
        /// When it was created, in milliseconds since 1970.
        public var created: Int64
        /// When it was bound to its user.
        public var bound: Int64?
        /// When it was last used.
        public var lastUsed: Int64
        /// Whether it belongs to a session.
        public var session: Bool
    }

    /// The tokens.
    public var pushTokens: [Token]

    init(_ tokens: [Token]) { pushTokens = tokens }

    public var json: JSONValue {
        [
            "pushTokens": .array(
                pushTokens.map { token in
                    [
                        "id": .string(token.id), "token": .string(token.token),
                        "userRecordName": ManagementActions.optional(token.userRecordName),
                        "userName": ManagementActions.optional(token.userName), "apnsEnvironment": .string(token.apnsEnvironment),
                        "created": .integer(token.created), "bound": token.bound.map(JSONValue.integer) ?? .null,
                        "lastUsed": .integer(token.lastUsed),
                        "session": .bool(token.session),
                    ]
                })
        ]
    }

    public init(json: JSONValue) throws {
        pushTokens = try AnswerFields(json).array("pushTokens") { value in
            let token = try AnswerFields(value)
            return Token(
                id: try token.string("id"), token: try token.string("token"), userRecordName: try token.optionalString("userRecordName"),
                userName: try token.optionalString("userName"), apnsEnvironment: try token.string("apnsEnvironment"),
                created: try token.int64("created"), bound: try token.optionalInt64("bound"), lastUsed: try token.int64("lastUsed"),
                session: try token.bool("session"))
        }
    }
}

/// A push token revoked.
public struct PushTokenRevocation: ManagementResult, Equatable {
    /// Its ID.
    public var id: String
    /// Its holder, when it was bound to one.
    public var userRecordName: String?

    init(id: String, userRecordName: String?) {
        self.id = id
        self.userRecordName = userRecordName
    }

    public var json: JSONValue { ["id": .string(id), "userRecordName": ManagementActions.optional(userRecordName), "revoked": true] }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        id = try fields.string("id")
        userRecordName = try fields.optionalString("userRecordName")
    }
}

/// A page of a zone's change log, newest first, tombstones included.
public struct ChangeLogView: ManagementResult, Equatable {
    /// One change.
    public struct Entry: Sendable, Equatable {
        /// Its sequence in the zone.
        public var sequence: Int64
        /// The record changed.
        public var recordName: String
        /// Its type.
        public var recordType: String
        /// `created`, `updated` or `deleted`.
        public var kind: String
        /// Who made the record.
        public var creator: String
        /// Who made the change; `nil` for changes logged before the log kept it.
        public var modifiedBy: String?
        /// The sign-in name of who made the change, when a user with a name.
        public var modifiedByName: String?
        /// The API token or server key the change came through, in words (`API token web`).
        public var via: String?
        /// When, in milliseconds since 1970.
        public var time: Int64
    }

    /// The zone.
    public var zoneName: String
    /// The zone's last sequence.
    public var lastSequence: Int64
    /// The sequence below which tokens have expired.
    public var horizon: Int64
    /// The zone's current sync token.
    public var syncToken: String
    /// Whether older changes (of the same filter) come before the page.
    public var hasOlder: Bool
    /// Whether newer changes (of the same filter) come after the page.
    public var hasNewer: Bool
    /// Whether record names are left out: a user's database in production, metadata only.
    public var contentsHidden: Bool
    /// The entries, newest first.
    public var entries: [Entry]

    init(
        zoneName: String, lastSequence: Int64, horizon: Int64, syncToken: String, hasOlder: Bool, hasNewer: Bool, contentsHidden: Bool,
        entries: [Entry]
    ) {
        self.contentsHidden = contentsHidden
        self.zoneName = zoneName
        self.lastSequence = lastSequence
        self.horizon = horizon
        self.syncToken = syncToken
        self.hasOlder = hasOlder
        self.hasNewer = hasNewer
        self.entries = entries
    }

    public var json: JSONValue {
        [
            "zoneName": .string(zoneName), "lastSequence": .integer(lastSequence), "horizon": .integer(horizon),
            "syncToken": .string(syncToken), "hasOlder": .bool(hasOlder), "hasNewer": .bool(hasNewer),
            "contentsHidden": .bool(contentsHidden),
            "entries": .array(
                entries.map { entry in
                    [
                        "sequence": .integer(entry.sequence), "recordName": .string(entry.recordName),
                        "recordType": .string(entry.recordType),
                        "kind": .string(entry.kind), "creator": .string(entry.creator),
                        "modifiedBy": ManagementActions.optional(entry.modifiedBy),
                        "modifiedByName": ManagementActions.optional(entry.modifiedByName),
                        "via": ManagementActions.optional(entry.via), "time": .integer(entry.time),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        zoneName = try fields.string("zoneName")
        lastSequence = try fields.int64("lastSequence")
        horizon = try fields.int64("horizon")
        syncToken = try fields.string("syncToken")
        hasOlder = try fields.bool("hasOlder")
        hasNewer = try fields.bool("hasNewer")
        contentsHidden = try fields.bool("contentsHidden")
        entries = try fields.array("entries") { value in
            let entry = try AnswerFields(value)
            return Entry(
                sequence: try entry.int64("sequence"), recordName: try entry.string("recordName"),
                recordType: try entry.string("recordType"),
                kind: try entry.string("kind"), creator: try entry.string("creator"), modifiedBy: try entry.optionalString("modifiedBy"),
                modifiedByName: try entry.optionalString("modifiedByName"), via: try entry.optionalString("via"),
                time: try entry.int64("time"))
        }
    }
}

/// What a client holding a sync token would receive next from a zone's feed, as a chosen reader.
public struct NextChangesView: ManagementResult, Equatable {
    /// One change.
    public enum Change: Sendable, Equatable {
        /// A record saved, with its type.
        case record(recordName: String, recordType: String)
        /// A record deleted.
        case deleted(recordName: String)
        /// A record the caller may not read.
        case withheld(recordName: String)
        /// A failure, with CloudKit's code.
        case failure(recordName: String?, serverErrorCode: String)

        /// The record's name, when known.
        public var recordName: String? {
            switch self {
            case .record(let name, _), .deleted(let name), .withheld(let name): name
            case .failure(let name, _): name
            }
        }
    }

    /// The held token, decoded.
    public struct HeldToken: Sendable, Equatable {
        /// The zone it belongs to, when known.
        public var zoneName: String?
        /// That zone's owner.
        public var owner: String?
        /// Whether it belongs to the zone asked about.
        public var isOfThisZone: Bool
        /// The last change its holder received.
        public var sequence: Int64
        /// When that change was made, in milliseconds since 1970, while the log holds it.
        public var time: Int64?
    }

    /// The reader the feed ran as: `_world` or a user's sign-in name.
    public var reader: String
    /// The held token, decoded; `nil` for a first fetch.
    public var heldToken: HeldToken?
    /// The changes.
    public var records: [Change]
    /// The token after them.
    public var syncToken: String
    /// Whether more waits.
    public var moreComing: Bool
    /// Whether record names are left out: a user's database in production, metadata only.
    public var contentsHidden: Bool

    init(reader: String, heldToken: HeldToken?, records: [Change], syncToken: String, moreComing: Bool, contentsHidden: Bool) {
        self.contentsHidden = contentsHidden
        self.reader = reader
        self.heldToken = heldToken
        self.records = records
        self.syncToken = syncToken
        self.moreComing = moreComing
    }

    public var json: JSONValue {
        [
            "reader": .string(reader),
            "heldToken": heldToken.map { held in
                [
                    "zoneName": ManagementActions.optional(held.zoneName), "owner": ManagementActions.optional(held.owner),
                    "isOfThisZone": .bool(held.isOfThisZone), "sequence": .integer(held.sequence),
                    "time": held.time.map(JSONValue.integer) ?? .null,
                ]
            } ?? .null,
            "records": .array(
                records.map { change in
                    switch change {
                    case .record(let name, let type): ["recordName": .string(name), "recordType": .string(type)]
                    case .deleted(let name): ["recordName": .string(name), "deleted": true]
                    case .withheld(let name): ["recordName": .string(name)]
                    case .failure(let name, let code): ["recordName": ManagementActions.optional(name), "serverErrorCode": .string(code)]
                    }
                }),
            "syncToken": .string(syncToken), "moreComing": .bool(moreComing), "contentsHidden": .bool(contentsHidden),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        reader = try fields.string("reader")
        if let held = json["heldToken"], held != .null {
            let token = try AnswerFields(held)
            heldToken = HeldToken(
                zoneName: try token.optionalString("zoneName"), owner: try token.optionalString("owner"),
                isOfThisZone: try token.bool("isOfThisZone"), sequence: try token.int64("sequence"), time: try token.optionalInt64("time"))
        } else {
            heldToken = nil
        }
        records = try fields.array("records") { value in
            let change = try AnswerFields(value)
            if let code = try change.optionalString("serverErrorCode") {
                return .failure(recordName: try change.optionalString("recordName"), serverErrorCode: code)
            }
            let name = try change.string("recordName")
            if value["deleted"] == true { return .deleted(recordName: name) }
            if let type = try change.optionalString("recordType") { return .record(recordName: name, recordType: type) }
            return .withheld(recordName: name)
        }
        syncToken = try fields.string("syncToken")
        moreComing = try fields.bool("moreComing")
        contentsHidden = try fields.bool("contentsHidden")
    }
}
