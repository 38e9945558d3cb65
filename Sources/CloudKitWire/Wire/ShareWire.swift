import CloudStore

/// Shares on the wire: the share fields of a `cloudkit.share` save, participants, and the
/// ShortGUID Result of `records/resolve` and `records/accept`.
public enum ShareWire {
    /// Whether a Record Dictionary of a save, of type `recordType`, describes a share: by its
    /// type, or, without one (a change to a share), by share-only keys. Asked of every
    /// operation: a record of another type is answered without a lookup.
    static func isShare(_ record: WireValue, recordType: String?) -> Bool {
        if let recordType { return recordType == Share.recordType }
        return record["forRecord"].isPresent || record["participants"].isPresent || record["publicPermission"].isPresent
    }

    /// The share change a save's Record Dictionary asks for: `forRecord`, `publicPermission`
    /// and `participants`.
    static func change(_ record: WireValue) throws(WireError) -> ShareChange {
        var change = ShareChange()
        let forRecord = record["forRecord"]
        try forRecord.requireObjectIfPresent()
        if forRecord.isPresent { change.rootRecordName = try forRecord["recordName"].requiredString() }
        if record["publicPermission"].isPresent { change.publicPermission = try permission(record["publicPermission"]) }
        if let participants = try record["participants"].array() {
            var invitations: [ShareChange.Invitation] = []
            for participant in participants {
                try participant.requireObjectIfPresent()
                // Clients send the whole list back, the owner in it; the owner is no invitation.
                if try participant["type"].string() == ShareParticipant.Kind.owner.rawValue { continue }
                invitations.append(try invitation(participant))
            }
            change.participants = invitations
        }
        return change
    }

    /// One Share Participant of a save: the user by `userIdentity.userRecordName`, or by
    /// `userIdentity.lookupInfo` (`userRecordName` or `emailAddress`), and a `permission`.
    private static func invitation(_ participant: WireValue) throws(WireError) -> ShareChange.Invitation {
        let identity = participant["userIdentity"]
        try identity.requireObjectIfPresent()
        let lookup = identity["lookupInfo"]
        try lookup.requireObjectIfPresent()
        // Two lines each: `??` with a throwing right side throws an untyped error.
        let givenName = try identity["userRecordName"].string()
        let lookedUpName = try lookup["userRecordName"].string()
        let lookedUpEmail = try lookup["emailAddress"].string()
        let givenEmail = try participant["emailAddress"].string()
        let name = givenName ?? lookedUpName
        let email = lookedUpEmail ?? givenEmail
        guard name != nil || email != nil else {
            throw WireError("\(identity.path) must name the user by userRecordName or lookupInfo.emailAddress")
        }
        guard participant["permission"].isPresent else { throw WireError("\(participant["permission"].path) is required") }
        return ShareChange.Invitation(userRecordName: name, emailAddress: email, permission: try permission(participant["permission"]))
    }

    private static func permission(_ value: WireValue) throws(WireError) -> SharePermission {
        let text = try value.requiredString()
        guard let permission = SharePermission(rawValue: text) else {
            throw WireError("\(value.path) '\(text)' is not one of \(SharePermission.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return permission
    }

    /// A Share Participant Dictionary. An invitation by email address that no user has accepted
    /// yet is identified by that address alone: which user has it, if any, is not known until
    /// they accept.
    public static func json(_ participant: ShareParticipant) -> JSONValue {
        let identity: JSONValue
        let id: String
        if let user = participant.userRecordName {
            identity = .object(["userRecordName": .string(user)])
            id = user
        } else {
            let address = participant.emailAddress ?? ""
            identity = .object(["lookupInfo": .object(["emailAddress": .string(address)])])
            id = "mailto:" + address
        }
        return .object([
            "participantId": .string(id), "userIdentity": identity,
            "type": .string(participant.type.rawValue), "permission": .string(participant.permission.rawValue),
            "acceptanceStatus": .string(participant.acceptanceStatus.rawValue),
        ])
    }

    /// The ShortGUID dictionaries of a `records/resolve|accept` request.
    public static func lookups(_ body: WireValue) throws(WireError) -> [ShareLookup] {
        var lookups: [ShareLookup] = []
        for entry in try body["shortGUIDs"].requiredArray() {
            try entry.requireObjectIfPresent()
            lookups.append(
                ShareLookup(
                    shortGUID: try entry["value"].requiredString(), fetchRootRecord: try entry["shouldFetchRootRecord"].bool() ?? false,
                    rootRecordDesiredKeys: try entry["rootRecordDesiredKeys"].strings()))
        }
        return lookups
    }

    /// One entry of a `records/resolve|accept` answer: a ShortGUID Result, or a ShortGUID Fetch
    /// Error.
    public static func json(_ resolution: ShareResolution, encoder: RecordEncoder) -> JSONValue {
        switch resolution {
        case .failure(let shortGUID, let error):
            let failure = CloudKitError(error)
            return .object([
                "shortGUID": .string(shortGUID), "reason": .string(failure.reason), "serverErrorCode": .string(failure.serverErrorCode),
            ])
        case .resolved(let metadata):
            let share = metadata.share
            var owner: JSONObject = ["userRecordName": .string(share.owner)]
            if let user = metadata.owner {
                var components: JSONObject = [:]
                if let first = user.firstName { components["givenName"] = .string(first) }
                if let last = user.lastName { components["familyName"] = .string(last) }
                owner["nameComponents"] = .object(components)
            }
            var object: JSONObject = [
                "containerIdentifier": .string(metadata.container.rawValue),
                "environment": .string(metadata.environment.rawValue.uppercased()),
                "databaseScope": .string(metadata.databaseScope.rawValue.uppercased()), "zoneID": ZoneWire.json(share.zoneID),
                "shortGUID": .string(share.shortGUID), "share": encoder.json(Record(share)), "ownerIdentity": .object(owner),
                "participantPermission": .string(metadata.participant.permission.rawValue),
                "participantStatus": .string(metadata.participant.acceptanceStatus.rawValue),
                "participantType": .string(metadata.participant.type.rawValue),
            ]
            if let root = share.rootRecordName { object["rootRecordName"] = .string(root) }
            if let record = metadata.rootRecord { object["rootRecord"] = encoder.json(record) }
            return .object(object)
        }
    }
}
