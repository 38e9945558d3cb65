extension CloudStore {
    /// The container's users as share invitations may name them, by record name.
    func shareParticipants(in container: ContainerIdentifier) throws -> ShareParticipants {
        ShareParticipants(users: Set(try users(container).map(\.userRecordName)))
    }

    /// Describes the shares that short GUIDs name, as `records/resolve` does: to their owner, to
    /// their participants (removed ones included, who learn that they were), and, when the share
    /// has a public permission, to any signed-in user. Anyone else learns nothing, not even that
    /// the share exists.
    /// - Parameter trace: where a refusal is recorded.
    public func resolveShares(
        _ requests: [ShareLookup], _ container: ContainerIdentifier, _ environment: Environment, as caller: Caller,
        trace: RequestTrace? = nil
    ) throws -> [ShareResolution] {
        let user = try shareUser(caller, trace: trace)
        let address = try self.user(user, in: container)?.emailAddress
        let storage = try self.environment(container, environment)
        let found = try storage.read { reader in try requests.map { try Self.share(named: $0.shortGUID, reader: reader) } }
        return try zip(requests, found).map { request, found in
            guard let (share, _) = found, let place = Self.place(of: user, address: address, in: share) else {
                return .failure(shortGUID: request.shortGUID, error: .notFound("Share not found"))
            }
            return .resolved(try resolution(share, place, request, container, environment, caller))
        }
    }

    /// Accepts the shares that short GUIDs name for the caller, as `records/accept` does: an
    /// invited participant accepts (an invitation by email address, with the caller's address,
    /// becomes theirs); any signed-in user joins a share with a public permission; a removed
    /// participant and anyone else are refused. The share's zone then appears in the caller's
    /// shared database.
    /// - Parameter trace: where a refusal is recorded.
    public func acceptShares(
        _ requests: [ShareLookup], _ container: ContainerIdentifier, _ environment: Environment, as caller: Caller,
        trace: RequestTrace? = nil
    ) throws -> [ShareResolution] {
        let user = try shareUser(caller, trace: trace)
        let address = try self.user(user, in: container)?.emailAddress
        let storage = try self.environment(container, environment)
        let now = now
        let accepted = try storage.write { writer in
            try requests.map { request -> Result<Share, CloudStoreError> in
                guard let (share, zone) = try Self.share(named: request.shortGUID, reader: writer),
                    Self.place(of: user, address: address, in: share) != nil
                else {
                    return .failure(.notFound("Share not found"))
                }
                guard user != share.owner else { return .success(share) }
                var changed = share
                if let index = share.participants.firstIndex(where: { $0.userRecordName == user }) ?? share.pendingInvitation(for: address)
                {
                    guard share.participants[index].acceptanceStatus != .removed else {
                        trace?.recordRefusal(
                            caller: caller.description, database: "shared(\(user))",
                            rule: "a participant the owner removed may not accept again",
                            why: "the owner of share \(request.shortGUID) removed the caller")
                        return .failure(.accessDenied("The share's owner removed you from this share"))
                    }
                    guard share.participants[index].acceptanceStatus != .accepted else { return .success(share) }
                    changed.participants[index].userRecordName = user
                    changed.participants[index].acceptanceStatus = .accepted
                } else {
                    changed.participants.append(
                        ShareParticipant(
                            userRecordName: user, permission: share.publicPermission, type: .publicUser, acceptanceStatus: .accepted))
                }
                let version = Share.version(ofTag: share.changeTag) + 1
                changed.changeTag = Share.changeTag(version: version)
                changed.modified = RecordStamp(timestamp: now, userRecordName: user, deviceID: caller.deviceID)
                try writer.saveShare(changed, version: version, in: zone)
                return .success(changed)
            }
        }
        return try zip(requests, accepted).map { request, outcome in
            switch outcome {
            case .failure(let error):
                return .failure(shortGUID: request.shortGUID, error: error)
            case .success(let share):
                guard let place = Self.place(of: user, address: address, in: share) else {
                    return .failure(shortGUID: request.shortGUID, error: .notFound("Share not found"))
                }
                return .resolved(try resolution(share, place, request, container, environment, caller))
            }
        }
    }

    /// Every share of a container's environment with its participants, for the operator.
    public func shares(_ container: ContainerIdentifier, _ environment: Environment) throws -> [Share] {
        try self.environment(container, environment).read { try $0.allShares() }
    }

    private func shareUser(_ caller: Caller, trace: RequestTrace?) throws -> String {
        guard let user = caller.signedInUser else {
            trace?.recordRefusal(
                caller: caller.description, database: "", rule: "resolving and accepting shares needs a signed-in user",
                why: caller.isWorld ? "the caller is not signed in" : "a server-to-server key is no user")
            throw CloudStoreError.authenticationRequired("Resolving and accepting shares needs a signed-in user")
        }
        return user
    }

    private static func share(named shortGUID: String, reader: any EnvironmentReader) throws -> (Share, StoredZone)? {
        guard ShareGUID.isWellFormed(shortGUID) else { return nil }
        return try reader.share(shortGUID: shortGUID)
    }

    /// `user`'s place in `share`: theirs when they are its owner or a participant, or when an
    /// invitation pending for their email `address` waits for them; a public user's, invited,
    /// when the share is open to anyone; `nil` otherwise.
    private static func place(of user: String, address: String?, in share: Share) -> ShareParticipant? {
        if let participant = share.participant(user) { return participant }
        if let index = share.pendingInvitation(for: address) { return share.participants[index] }
        guard share.publicPermission != .none else { return nil }
        return ShareParticipant(userRecordName: user, permission: share.publicPermission, type: .publicUser, acceptanceStatus: .invited)
    }

    private func resolution(
        _ share: Share, _ place: ShareParticipant, _ request: ShareLookup, _ container: ContainerIdentifier, _ environment: Environment,
        _ caller: Caller
    ) throws -> ShareMetadata {
        let isOwner = place.type == .owner
        var rootRecord: Record?
        if request.fetchRootRecord, let root = share.rootRecordName {
            // Read as the caller reads it: the owner in their private database, anyone else
            // through their shares, so that the root comes only once they may read it.
            let base = try database(container, environment, isOwner ? .private : .shared, as: caller)
            let reached = base.reaching(owner: share.owner)
            rootRecord = try reached.lookup(
                [RecordLookup(root)], zoneName: share.zoneID.zoneName, desiredKeys: request.rootRecordDesiredKeys
            )
            .first?.record
        }
        return ShareMetadata(
            container: container, environment: environment, share: share, databaseScope: isOwner ? .private : .shared,
            owner: try user(share.owner, in: container), participant: place, rootRecord: rootRecord)
    }
}

extension CloudStore {
    /// Takes `user` out of a share, as its owner saving the share without them would: they lose
    /// what it gave them at once, and learn they were removed when they resolve it.
    /// - Parameter caller: who acts: the owner, or the operator (in development only, as for
    ///   every private database).
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown share or a user not in it.
    @discardableResult
    public func removeShareParticipant(
        _ user: String, fromShare name: String, zoneName: String, owner: String, _ container: ContainerIdentifier,
        _ environment: Environment, as caller: Caller, by actor: OperatorIdentity? = nil
    ) throws -> Share {
        var database = try self.database(container, environment, database: .private(owner), as: caller)
        if let actor {
            let names = (try self.user(owner, in: container)?.name ?? owner, try self.user(user, in: container)?.name ?? user)
            database.auditActor = actor
            database.auditSummary = ("share.participant.remove", "\(names.0)/\(zoneName)/\(name)/\(names.1)")
        }
        let share = try existingShare(name, zoneName: zoneName, in: database)
        guard share.participants.contains(where: { $0.userRecordName == user && $0.acceptanceStatus != .removed }) else {
            throw CloudStoreError.notFound("User \(user) is not a participant of share \(name)")
        }
        let kept = share.participants.filter { $0.userRecordName != user && $0.acceptanceStatus != .removed }.map {
            ShareChange.Invitation(userRecordName: $0.userRecordName, emailAddress: $0.emailAddress, permission: $0.permission)
        }
        let result = try database.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.update, recordName: name, recordChangeTag: share.changeTag, share: ShareChange(participants: kept))
                ], zoneName: zoneName))
        guard let saved = result.first?.record?.sharing else {
            throw result.first?.error ?? CloudStoreError.internalError("No share saved")
        }
        return saved
    }

    /// Deletes a share: everyone in it loses what it gave them at once, and its root is no
    /// longer shared.
    public func deleteShare(
        _ name: String, zoneName: String, owner: String, _ container: ContainerIdentifier, _ environment: Environment, as caller: Caller,
        by actor: OperatorIdentity? = nil
    ) throws {
        var database = try self.database(container, environment, database: .private(owner), as: caller)
        if let actor {
            database.auditActor = actor
            database.auditSummary = ("share.delete", "\(try self.user(owner, in: container)?.name ?? owner)/\(zoneName)/\(name)")
        }
        _ = try existingShare(name, zoneName: zoneName, in: database)
        let result = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: name)], zoneName: zoneName))
        if let error = result.first?.error { throw error }
    }

    /// Takes `participant` out of every share of `owner`'s zone `zoneName` they are in, as the
    /// participant deleting the zone from their shared database does in CloudKit: they lose what
    /// the shares gave them at once. Through the participant's shared database, so that only a
    /// zone shared with them can be left.
    /// - Returns: the record names of the shares left.
    /// - Throws: ``CloudStoreError/zoneNotFound(_:)`` when nothing of the zone is shared with them.
    @discardableResult
    public func leaveSharedZone(
        _ zoneName: String, owner: String, participant: String, _ container: ContainerIdentifier, _ environment: Environment,
        as caller: Caller, by actor: OperatorIdentity? = nil
    ) throws -> [String] {
        var shared = try self.database(container, environment, database: .shared(participant), as: caller)
        if let actor {
            let names = (try self.user(participant, in: container)?.name ?? participant, try self.user(owner, in: container)?.name ?? owner)
            shared.auditActor = actor
            shared.auditSummary = ("share.leave", "\(names.0) left \(names.1)/\(zoneName)")
        }
        let reached = shared.reaching(owner: owner)
        let zoneID = ZoneID(zoneName: zoneName, ownerRecordName: owner)
        guard owner != participant, case .zone = try reached.lookupZones([zoneName]).first else {
            throw CloudStoreError.zoneNotFound(zoneID)
        }
        let names = try shares(container, environment)
            .filter { share in
                share.zoneID == zoneID
                    && share.participants.contains { $0.userRecordName == participant && $0.acceptanceStatus != .removed }
            }
            .map(\.recordName)
        guard !names.isEmpty else { throw CloudStoreError.zoneNotFound(zoneID) }
        let results = try reached.modify(
            ModifyRequest(operations: names.map { RecordOperation(.forceDelete, recordName: $0) }, zoneName: zoneName))
        if let error = results.lazy.compactMap(\.error).first { throw error }
        return names
    }

    private func existingShare(_ name: String, zoneName: String, in database: CloudDatabase) throws -> Share {
        // Read for the change the operator makes, which its own entry records, not as a read.
        var database = database
        database.auditActor = nil
        guard let share = try database.lookup([RecordLookup(name)], zoneName: zoneName).first?.record?.sharing else {
            throw CloudStoreError.notFound("Zone \(zoneName) of \(database.database.owner) has no share \(name)")
        }
        return share
    }
}
