import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Shares

    /// Every share of a container's environment: owner, zone, what it shares, its short GUID,
    /// public permission and participants.
    public func shares(in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let names = Dictionary(try store.users(identifier).map { ($0.userRecordName, $0.name) }, uniquingKeysWith: { first, _ in first })
        let shares = try store.shares(identifier, try Self.environment(environment))
        return ["shares": .array(shares.map { share in
            [
                "recordName": .string(share.recordName), "zoneName": .string(share.zoneID.zoneName), "owner": .string(share.owner),
                "ownerName": Self.optional(names[share.owner]), "rootRecordName": Self.optional(share.rootRecordName),
                "shortGUID": .string(share.shortGUID), "publicPermission": .string(share.publicPermission.rawValue),
                "modified": Self.time(share.modified.timestamp),
                "participants": .array(share.participants.map { participant in
                    // An invitation by address no user has accepted yet has only its address.
                    var entry: JSONObject = participant.userRecordName.map { user in
                        ["userRecordName": .string(user), "name": Self.optional(names[user])]
                    } ?? ["emailAddress": Self.optional(participant.emailAddress)]
                    entry["permission"] = .string(participant.permission.rawValue)
                    entry["type"] = .string(participant.type.rawValue)
                    entry["acceptanceStatus"] = .string(participant.acceptanceStatus.rawValue)
                    return .object(entry)
                }),
            ]
        })]
    }

    /// Takes a participant out of a share, as its owner would.
    /// - Parameters:
    ///   - owner: the share's owner; `user` the participant; each a sign-in name or user record name.
    public func removeShareParticipant(
        _ user: String, share: String, zone: String, owner: String, in container: String, environment: String, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (identifier, ownerUser) = try existingUser(owner, in: container)
        let (_, participant) = try existingUser(user, in: container)
        let environment = try Self.environment(environment)
        let saved = try store.removeShareParticipant(
            participant.userRecordName, fromShare: share, zoneName: zone, owner: ownerUser.userRecordName, identifier, environment,
            as: actor.caller, by: actor)
        return ["recordName": .string(saved.recordName), "removed": .string(participant.userRecordName)]
    }

    /// Deletes a share, as its owner would.
    public func deleteShare(
        _ share: String, zone: String, owner: String, in container: String, environment: String, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (identifier, ownerUser) = try existingUser(owner, in: container)
        let environment = try Self.environment(environment)
        try store.deleteShare(share, zoneName: zone, owner: ownerUser.userRecordName, identifier, environment, as: actor.caller, by: actor)
        return ["recordName": .string(share), "deleted": true]
    }
}
