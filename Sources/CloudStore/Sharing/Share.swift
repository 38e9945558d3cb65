/// A share: a record hierarchy or a whole zone of a user's private database, opened to other
/// users of the container. Its participants see what it covers in their shared database.
public struct Share: Hashable, Sendable {
    /// The record type shares have on the wire.
    public static let recordType = "cloudkit.share"
    /// The record name of a share that covers a whole zone, as CloudKit names it.
    public static let zoneShareName = "cloudkit.zoneshare"
    /// The fields a share record may carry: its title, its type and a thumbnail.
    public static let fieldTypes: [String: FieldType] = [
        "cloudkit.title": .string, "cloudkit.type": .string, "cloudkit.thumbnailImageData": .bytes,
    ]

    /// The share record's name, unique within its zone.
    public var recordName: String
    /// The zone the share is in: the owner's private database's.
    public var zoneID: ZoneID
    /// The root of the shared hierarchy; `nil` for a share of the whole zone.
    public var rootRecordName: String?
    /// The short GUID that names the share in its URL and in `records/resolve|accept`.
    public var shortGUID: String
    /// What anyone who has the short GUID may do once they accept.
    public var publicPermission: SharePermission
    /// The users the share was given to, the owner not included.
    public var participants: [ShareParticipant]
    /// The share record's fields (`cloudkit.title`, …).
    public var fields: [String: FieldValue]
    /// Changes on every save of the share.
    public var changeTag: String
    /// When and by whom the share was created.
    public var created: RecordStamp
    /// When and by whom the share was last changed.
    public var modified: RecordStamp

    /// Creates a share description.
    public init(
        recordName: String, zoneID: ZoneID, rootRecordName: String?, shortGUID: String, publicPermission: SharePermission,
        participants: [ShareParticipant], fields: [String: FieldValue] = [:], changeTag: String, created: RecordStamp, modified: RecordStamp
    ) {
        self.recordName = recordName
        self.zoneID = zoneID
        self.rootRecordName = rootRecordName
        self.shortGUID = shortGUID
        self.publicPermission = publicPermission
        self.participants = participants
        self.fields = fields
        self.changeTag = changeTag
        self.created = created
        self.modified = modified
    }

    /// The user who owns the share: the owner of its zone.
    public var owner: String { zoneID.ownerRecordName }

    /// The owner as a participant: read-write, accepted.
    public var ownerParticipant: ShareParticipant {
        ShareParticipant(userRecordName: owner, permission: .readWrite, type: .owner, acceptanceStatus: .accepted)
    }

    /// Every participant, the owner first.
    public var allParticipants: [ShareParticipant] { [ownerParticipant] + participants }

    /// `user`'s place in the share: the owner's, a participant's, or `nil` for a stranger. An
    /// invitation by email address is nobody's place until a user with the address accepts it.
    public func participant(_ user: String) -> ShareParticipant? {
        user == owner ? ownerParticipant : participants.first { $0.userRecordName == user }
    }

    /// The invitation by email address that a user with `emailAddress` would take up by
    /// accepting: one that no user has accepted yet.
    public func pendingInvitation(for emailAddress: String?) -> Int? {
        guard let key = emailAddress.flatMap(ShareParticipant.addressKey) else { return nil }
        return participants.firstIndex { $0.userRecordName == nil && $0.emailAddress.flatMap(ShareParticipant.addressKey) == key }
    }

    /// What `user` may do with what the share covers, now: nothing unless they accepted and
    /// were not removed since.
    public func permission(of user: String) -> SharePermission {
        guard let participant = participant(user), participant.acceptanceStatus == .accepted else { return .none }
        return participant.permission
    }
}

/// What a share lets a participant, or anyone with its short GUID, do.
public enum SharePermission: String, Hashable, Sendable, CaseIterable, Comparable {
    /// Nothing.
    case none = "NONE"
    /// Read what the share covers.
    case readOnly = "READ_ONLY"
    /// Read and change what the share covers, and add records to it.
    case readWrite = "READ_WRITE"

    private var rank: Int {
        switch self {
        case .none: 0
        case .readOnly: 1
        case .readWrite: 2
        }
    }

    public static func < (lhs: SharePermission, rhs: SharePermission) -> Bool { lhs.rank < rhs.rank }
}

/// One user's place in a share.
public struct ShareParticipant: Hashable, Sendable {
    /// How the participant came to the share.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// The share's owner.
        case owner = "OWNER"
        /// A user the owner invited.
        case user = "USER"
        /// A user who accepted a share open to anyone with its short GUID.
        case publicUser = "PUBLIC_USER"
    }

    /// Whether the participant took the share.
    public enum AcceptanceStatus: String, Hashable, Sendable, CaseIterable {
        /// Invited, not accepted yet.
        case invited = "INVITED"
        /// Accepted: the share's zone is in their shared database.
        case accepted = "ACCEPTED"
        /// Removed by the owner, or left.
        case removed = "REMOVED"
    }

    /// The participant's user record name; `nil` for an invitation by email address that no user
    /// has accepted yet. Inviting by address never tells the owner which user, if any, has it:
    /// the user becomes known when they accept.
    public var userRecordName: String?
    /// The email address the owner invited the participant by, when they invited by address.
    public var emailAddress: String?
    /// What the participant may do.
    public var permission: SharePermission
    /// How the participant came to the share.
    public var type: Kind
    /// Whether the participant took the share.
    public var acceptanceStatus: AcceptanceStatus

    /// Creates a participant.
    public init(
        userRecordName: String?, emailAddress: String? = nil, permission: SharePermission, type: Kind, acceptanceStatus: AcceptanceStatus
    ) {
        self.userRecordName = userRecordName
        self.emailAddress = emailAddress
        self.permission = permission
        self.type = type
        self.acceptanceStatus = acceptanceStatus
    }

    /// The form in which email addresses are compared: lower-cased, as mail systems compare
    /// domains and nearly all compare mailboxes. `nil` for text that is no address.
    public static func addressKey(_ address: String) -> String? {
        let key = address.lowercased()
        guard isWellFormedAddress(key) else { return nil }
        return key
    }

    /// Whether `address` looks like an email address: `local@domain`, at most 254 bytes, without
    /// spaces or control characters. Whether anyone has it is never asked.
    public static func isWellFormedAddress(_ address: String) -> Bool {
        let parts = address.split(separator: "@", omittingEmptySubsequences: false)
        guard address.utf8.count <= 254, parts.count == 2, !parts[0].isEmpty, parts[1].contains("."),
            !parts[1].hasPrefix("."), !parts[1].hasSuffix(".")
        else { return false }
        return !address.unicodeScalars.contains { $0.value <= 0x20 || $0.value == 0x7F || $0.properties.isWhitespace }
    }
}

/// What a save of a `cloudkit.share` record asks beyond its fields.
public struct ShareChange: Hashable, Sendable {
    /// The root record of the hierarchy to share (`forRecord`); `nil` with the name
    /// ``Share/zoneShareName`` shares the whole zone, and leaves an existing share's root alone.
    public var rootRecordName: String?
    /// The public permission; `nil` leaves it as it is (``SharePermission/none`` for a new share).
    public var publicPermission: SharePermission?
    /// The participants the share should have, the owner left out; `nil` leaves them as they are.
    /// Anyone left out of the list is removed.
    public var participants: [Invitation]?

    /// One participant of a save: a user named by record name or by email address.
    public struct Invitation: Hashable, Sendable {
        /// The user's record name.
        public var userRecordName: String?
        /// The user's email address, when the record name is not given.
        public var emailAddress: String?
        /// What they may do.
        public var permission: SharePermission

        /// Creates an invitation.
        public init(userRecordName: String? = nil, emailAddress: String? = nil, permission: SharePermission) {
            self.userRecordName = userRecordName
            self.emailAddress = emailAddress
            self.permission = permission
        }
    }

    /// Creates a share change.
    public init(rootRecordName: String? = nil, publicPermission: SharePermission? = nil, participants: [Invitation]? = nil) {
        self.rootRecordName = rootRecordName
        self.publicPermission = publicPermission
        self.participants = participants
    }
}
