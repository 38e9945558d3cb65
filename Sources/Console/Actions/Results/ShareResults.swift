import CloudKitWire
import CloudStore

/// Every share of a container's environment.
public struct SharesView: ManagementResult, Equatable {
    /// One participant of a share.
    public struct Participant: Sendable, Equatable {
        /// Their user record name; `nil` for an invitation by address no user has accepted yet.
        public var userRecordName: String?
        /// Their sign-in name, when known.
        public var name: String?
        /// The address of an invitation not yet accepted.
        public var emailAddress: String?
        /// `READ_ONLY` or `READ_WRITE`.
        public var permission: String
        /// `OWNER`, `USER`, `PUBLIC_USER`…
        public var type: String
        /// `INVITED`, `ACCEPTED`, `REMOVED`…
        public var acceptanceStatus: String
    }

    /// One share.
    public struct Share: Sendable, Equatable {
        /// The share record's name.
        public var recordName: String
        /// Its zone.
        public var zoneName: String
        /// Its owner's user record name.
        public var owner: String
        /// Its owner's sign-in name, when known.
        public var ownerName: String?
        /// The record it shares; `nil` for the whole zone.
        public var rootRecordName: String?
        /// Its short GUID.
        public var shortGUID: String
        /// What anyone with the link may do.
        public var publicPermission: String
        /// When it last changed, in milliseconds since 1970.
        public var modified: Int64
        /// Its participants.
        public var participants: [Participant]
    }

    /// The shares.
    public var shares: [Share]

    init(_ shares: [Share]) { self.shares = shares }

    public var json: JSONValue {
        [
            "shares": .array(
                shares.map { share in
                    [
                        "recordName": .string(share.recordName), "zoneName": .string(share.zoneName), "owner": .string(share.owner),
                        "ownerName": ManagementActions.optional(share.ownerName),
                        "rootRecordName": ManagementActions.optional(share.rootRecordName),
                        "shortGUID": .string(share.shortGUID), "publicPermission": .string(share.publicPermission),
                        "modified": .integer(share.modified),
                        "participants": .array(
                            share.participants.map { participant in
                                var entry: JSONObject =
                                    participant.userRecordName.map { user in
                                        ["userRecordName": .string(user), "name": ManagementActions.optional(participant.name)]
                                    } ?? ["emailAddress": ManagementActions.optional(participant.emailAddress)]
                                entry["permission"] = .string(participant.permission)
                                entry["type"] = .string(participant.type)
                                entry["acceptanceStatus"] = .string(participant.acceptanceStatus)
                                return .object(entry)
                            }),
                    ]
                })
        ]
    }

    public init(json: JSONValue) throws {
        shares = try AnswerFields(json).array("shares") { value in
            let share = try AnswerFields(value)
            return Share(
                recordName: try share.string("recordName"), zoneName: try share.string("zoneName"), owner: try share.string("owner"),
                ownerName: try share.optionalString("ownerName"), rootRecordName: try share.optionalString("rootRecordName"),
                shortGUID: try share.string("shortGUID"), publicPermission: try share.string("publicPermission"),
                modified: try share.int64("modified"),
                participants: try share.array("participants") { value in
                    let participant = try AnswerFields(value)
                    return Participant(
                        userRecordName: try participant.optionalString("userRecordName"), name: try participant.optionalString("name"),
                        emailAddress: try participant.optionalString("emailAddress"), permission: try participant.string("permission"),
                        type: try participant.string("type"), acceptanceStatus: try participant.string("acceptanceStatus"))
                })
        }
    }
}

/// A share changed: a participant removed from it, or the share deleted.
public struct ShareChangeView: ManagementResult, Equatable {
    /// The share record's name.
    public var recordName: String
    /// The participant removed; `nil` when the share was deleted.
    public var removed: String?

    init(recordName: String, removed: String?) {
        self.recordName = recordName
        self.removed = removed
    }

    public var json: JSONValue {
        if let removed { return ["recordName": .string(recordName), "removed": .string(removed)] }
        return ["recordName": .string(recordName), "deleted": true]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        recordName = try fields.string("recordName")
        removed = json["deleted"] == true ? nil : try fields.string("removed")
    }
}

/// A participant's leaving of a shared zone: the zone, its owner, who left and the shares they left.
public struct SharedZoneLeaving: ManagementResult, Equatable {
    /// The zone's name.
    public var zoneName: String
    /// The user record name of the zone's owner.
    public var ownerRecordName: String
    /// The user record name of the participant who left.
    public var participant: String
    /// The record names of the shares they left.
    public var shares: [String]

    init(zoneName: String, ownerRecordName: String, participant: String, shares: [String]) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
        self.participant = participant
        self.shares = shares
    }

    public var json: JSONValue {
        [
            "zoneName": .string(zoneName), "ownerRecordName": .string(ownerRecordName), "participant": .string(participant),
            "shares": .array(shares.map { .string($0) }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        zoneName = try fields.string("zoneName")
        ownerRecordName = try fields.string("ownerRecordName")
        participant = try fields.string("participant")
        shares = try fields.array("shares") { value in
            guard let name = value.stringValue else { throw MalformedAnswer(description: "A share's name is not a string") }
            return name
        }
    }
}
