import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Shares

    /// Every share of a container's environment: owner, zone, what it shares, its short GUID,
    /// public permission and participants.
    public func shares(in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws -> SharesView {
        let identifier = try existingContainer(container)
        let names = try userNames(identifier)
        let shares = try store.shares(identifier, environment)
        return SharesView(
            shares.map { share in
                SharesView.Share(
                    recordName: share.recordName, zoneName: share.zoneID.zoneName, owner: share.owner, ownerName: names[share.owner],
                    rootRecordName: share.rootRecordName, shortGUID: share.shortGUID, publicPermission: share.publicPermission.rawValue,
                    modified: share.modified.timestamp,
                    participants: share.participants.map { participant in
                        // An invitation by address no user has accepted yet has only its address.
                        SharesView.Participant(
                            userRecordName: participant.userRecordName, name: participant.userRecordName.flatMap { names[$0] },
                            emailAddress: participant.emailAddress, permission: participant.permission.rawValue,
                            type: participant.type.rawValue,
                            acceptanceStatus: participant.acceptanceStatus.rawValue)
                    })
            })
    }

    /// Takes a participant out of a share, as its owner would.
    /// - Parameters:
    ///   - owner: the share's owner; `user` the participant; each a sign-in name or user record name.
    public func removeShareParticipant(
        _ user: String, share: String, zone: String, owner: String, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> ShareChangeView {
        let (identifier, ownerUser) = try existingUser(owner, in: container)
        let (_, participant) = try existingUser(user, in: container)
        let saved = try store.removeShareParticipant(
            participant.userRecordName, fromShare: share, zoneName: zone, owner: ownerUser.userRecordName, identifier, environment,
            as: actor.caller, by: actor)
        return ShareChangeView(recordName: saved.recordName, removed: participant.userRecordName)
    }

    /// Deletes a share, as its owner would.
    public func deleteShare(
        _ share: String, zone: String, owner: String, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> ShareChangeView {
        let (identifier, ownerUser) = try existingUser(owner, in: container)
        try store.deleteShare(share, zoneName: zone, owner: ownerUser.userRecordName, identifier, environment, as: actor.caller, by: actor)
        return ShareChangeView(recordName: share, removed: nil)
    }
}
