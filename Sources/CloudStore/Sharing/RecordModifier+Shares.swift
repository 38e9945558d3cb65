extension RecordModifier {
    /// Whether `operation` saves or deletes a share rather than a record.
    func isShareOperation(_ operation: RecordOperation, named name: String?, in zone: StoredZone, access: TransactionAccess) throws -> Bool
    {
        if operation.recordType == Share.recordType || operation.share != nil { return true }
        guard operation.recordType == nil, let name else { return false }
        return try access.shares(in: zone).contains { $0.recordName == name }
    }

    /// Saves or deletes a share as `records/modify` does a record. The owner creates, changes
    /// and deletes it; a participant may only delete it, which takes them out of it.
    func applyShare(
        _ operation: RecordOperation, named name: String, in zone: StoredZone, writer: any EnvironmentWriter,
        access: TransactionAccess
    ) throws -> RecordResult {
        let shares = try access.shares(in: zone)
        let existing = shares.first { $0.recordName == name }
        defer { access.sharesChanged(in: zone) }
        let stamp = RecordStamp(
            timestamp: now, userRecordName: caller.userRecordName ?? Caller.operatorRecordName, deviceID: caller.deviceID)

        if viaShare {
            guard operation.kind.isDelete, var left = existing, let user = caller.signedInUser, left.participant(user) != nil else {
                access.recordSharedRefusal(
                    .write, .shareChangedByOwner, recordName: name, recordType: Share.recordType, zone: zone,
                    given: existing.map { $0.permission(of: caller.signedInUser ?? "") } ?? SharePermission.none)
                throw CloudStoreError.accessDenied("Only the share's owner changes a share; a participant may only leave it by deleting it")
            }
            left.participants = left.participants.map { participant in
                var participant = participant
                if participant.userRecordName == user { participant.acceptanceStatus = .removed }
                return participant
            }
            left.modified = stamp
            try writer.saveShare(left, version: Share.version(ofTag: left.changeTag) + 1, in: zone)
            return .deleted(recordName: name, zoneID: zone.zoneID)
        }
        guard !zone.zoneID.isDefaultZone else {
            throw CloudStoreError.badRequest(
                "Records of the default zone cannot be shared: share a record of a custom zone, or a custom zone")
        }
        if let given = operation.recordType, given != Share.recordType {
            throw CloudStoreError.badRequest("Record '\(name)' is a share, of type \(Share.recordType), not '\(given)'")
        }

        switch operation.kind {
        case .delete, .forceDelete:
            guard let existing else { throw CloudStoreError.notFound("Record not found") }
            if operation.kind == .delete { try requireCurrentTag(operation, of: existing) }
            try writer.deleteShare(named: name, in: zone)
            if let root = existing.rootRecordName { try touchRoot(root, in: zone, writer: writer, stamp: stamp) }
            return .deleted(recordName: name, zoneID: zone.zoneID)
        case .create:
            if let existing { throw CloudStoreError.conflict("record to insert already exists", serverRecord: Record(existing)) }
        case .update, .replace:
            guard let existing else { throw CloudStoreError.notFound("Record not found") }
            try requireCurrentTag(operation, of: existing)
        case .forceUpdate, .forceReplace:
            break
        }

        for (field, value) in operation.fields {
            guard let type = Share.fieldTypes[field] else {
                throw CloudStoreError.badRequest(
                    "A share holds only the fields \(Share.fieldTypes.keys.sorted().joined(separator: ", ")); '\(field)' is none of them")
            }
            guard value.type == type else {
                throw CloudStoreError.badRequest("Field '\(field)' of a share is a \(type), not a \(value.type)")
            }
        }
        var fields = operation.fields
        if let existing, !operation.kind.replacesFields {
            fields = existing.fields.merging(operation.fields) { _, new in new }
        }
        for cleared in operation.clearedFields { fields[cleared] = nil }

        let change = operation.share ?? ShareChange()
        var share: Share
        if let existing {
            if let root = change.rootRecordName, root != existing.rootRecordName {
                throw CloudStoreError.badRequest(
                    "Share '\(name)' shares \(existing.rootRecordName.map { "record '\($0)'" } ?? "its zone"); a share's root cannot change"
                )
            }
            share = existing
            share.fields = fields
            share.modified = stamp
        } else {
            try checkNewShare(named: name, root: change.rootRecordName, among: shares, in: zone, writer: writer)
            share = Share(
                recordName: name, zoneID: zone.zoneID, rootRecordName: change.rootRecordName, shortGUID: ShareGUID.make(),
                publicPermission: .none, participants: [], fields: fields, changeTag: "", created: stamp, modified: stamp)
        }
        if let permission = change.publicPermission {
            share.publicPermission = permission
            // Who joined through the public permission holds what it gives now.
            for index in share.participants.indices where share.participants[index].type == .publicUser {
                share.participants[index].permission = permission
            }
        }
        if let invitations = change.participants {
            share.participants = try participants(invitations, replacing: share.participants, owner: share.owner)
        }
        let version = existing.map { Share.version(ofTag: $0.changeTag) + 1 } ?? 1
        share.changeTag = Share.changeTag(version: version)
        try writer.saveShare(share, version: version, in: zone)
        if existing == nil, let root = share.rootRecordName { try touchRoot(root, in: zone, writer: writer, stamp: stamp) }
        return .record(Record(share))
    }

    private func requireCurrentTag(_ operation: RecordOperation, of share: Share) throws {
        guard let tag = operation.recordChangeTag else {
            throw CloudStoreError.badRequest(
                "recordChangeTag is required to \(operation.kind.rawValue) share '\(share.recordName)'; force\(operation.kind.rawValue.capitalized) ignores it"
            )
        }
        guard tag == share.changeTag else {
            throw CloudStoreError.conflict("client oplock error updating record", serverRecord: Record(share))
        }
    }

    /// Refuses a new share of `root` (of the whole zone for `nil`) that would overlap one the
    /// zone has: a record is in one shared hierarchy at most, and a zone shared as a whole has
    /// no other share.
    private func checkNewShare(named name: String, root: String?, among shares: [Share], in zone: StoredZone, writer: any EnvironmentWriter)
        throws
    {
        let zoneName = zone.zoneID.zoneName
        if let root {
            guard let rootRecord = try writer.record(named: root, in: zone) else {
                throw CloudStoreError.badRequest("forRecord names record '\(root)', which does not exist in zone '\(zoneName)'")
            }
            if let other = shares.first(where: { $0.rootRecordName == root }) {
                throw CloudStoreError.badRequest("Record '\(root)' is already shared by share '\(other.recordName)'")
            }
            if shares.contains(where: { $0.rootRecordName == nil }) {
                throw CloudStoreError.badRequest("Zone '\(zoneName)' is shared as a whole; its records cannot also be shared one by one")
            }
            if let above = try ShareScope.root(
                of: root, parent: rootRecord.record.parent, roots: ShareScope.roots(of: shares), in: zone, reader: writer)
            {
                throw CloudStoreError.badRequest(
                    "Record '\(root)' is in the hierarchy shared from record '\(above)'; a record is in one share at most")
            }
        } else {
            guard name == Share.zoneShareName else {
                throw CloudStoreError.badRequest(
                    "A share names the record it shares in forRecord, or shares its whole zone under the name '\(Share.zoneShareName)'")
            }
            guard shares.isEmpty else {
                throw CloudStoreError.badRequest("Zone '\(zoneName)' has shares of records; it cannot also be shared as a whole")
            }
        }
        if let record = try writer.record(named: name, in: zone) {
            throw CloudStoreError.conflict("record to insert already exists", serverRecord: record.record)
        }
    }

    /// The participants a save lists, the owner left out. Someone listed before — by the record
    /// name they accepted under, or by the address they were invited by — keeps whether they
    /// accepted (one removed is invited again); someone no longer listed is removed. An address
    /// not listed before becomes an invitation pending until a user with it accepts.
    private func participants(_ invitations: [ShareChange.Invitation], replacing current: [ShareParticipant], owner: String) throws
        -> [ShareParticipant]
    {
        var result: [ShareParticipant] = []
        var listed: Set<String> = []
        for invitation in invitations {
            guard invitation.permission != .none else {
                throw CloudStoreError.badRequest("A participant's permission must be READ_ONLY or READ_WRITE, not NONE")
            }
            let previous: ShareParticipant?
            let fresh: ShareParticipant
            switch try participantUsers.invitee(invitation) {
            case .user(let user):
                // The owner is a participant of every share already.
                guard user != owner else { continue }
                previous = current.first { $0.userRecordName == user }
                fresh = ShareParticipant(userRecordName: user, permission: invitation.permission, type: .user, acceptanceStatus: .invited)
            case .email(let address):
                let key = ShareParticipant.addressKey(address)
                previous = current.first { $0.emailAddress.flatMap(ShareParticipant.addressKey) == key }
                fresh = ShareParticipant(
                    userRecordName: nil, emailAddress: address, permission: invitation.permission, type: .user, acceptanceStatus: .invited)
            }
            var participant = previous ?? fresh
            guard listed.insert(Self.identity(of: participant)).inserted else { continue }
            participant.permission = invitation.permission
            if participant.acceptanceStatus == .removed { participant.acceptanceStatus = .invited }
            result.append(participant)
        }
        for var previous in current where !listed.contains(Self.identity(of: previous)) {
            previous.acceptanceStatus = .removed
            result.append(previous)
        }
        return result
    }

    /// What tells participants apart: the user, once known, else the address they were invited by.
    private static func identity(of participant: ShareParticipant) -> String {
        if let user = participant.userRecordName { return "user " + user }
        return "address " + (participant.emailAddress.flatMap(ShareParticipant.addressKey) ?? "")
    }

    /// Saves the root of a hierarchy that was shared or unshared with a new change tag and a
    /// change in its zone's log: its `share` changed, and the feeds say so.
    private func touchRoot(_ root: String, in zone: StoredZone, writer: any EnvironmentWriter, stamp: RecordStamp) throws {
        guard let stored = try writer.record(named: root, in: zone) else { return }
        var record = stored.record
        record.changeTag = ChangeTag.make()
        record.modified = stamp
        try writer.keepVersion(
            of: stored, in: zone, replacedBy: VersionReplacement(kind: .updated, time: now, modifier: stamp.userRecordName, via: via))
        let updated = try writer.update(stored, to: record, in: zone)
        try writer.appendChange(
            ChangeEntry(
                recordName: root, recordType: record.recordType, kind: .updated,
                creator: record.created.userRecordName, time: now, modifier: stamp.userRecordName, via: via),
            in: zone)
        try notifier?.recordChanged(updated, .update, in: zone, reader: writer)
    }
}
