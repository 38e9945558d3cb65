/// Per-user erasure (the right to be forgotten): a user's private database, their shares and
/// participations, the public records they created (or, per type, given to another user), the
/// records they created in zones others shared with them, their subscriptions, push tokens,
/// sessions and roles, the history and trash of what goes, and, when every environment goes,
/// their account (and so their discoverability); the request log keeps their calls under an
/// anonymous id. Deletions are made as the changes of CloudKit's clients are, so that other users'
/// devices learn of them in their feeds (tombstones in the public and shared zones).
extension CloudStore {
    /// Erases `userRecordName` from `container`, or with `dryRun` only counts what would go, and
    /// writes one audit entry (`user.erase`, with the account's removal when it goes). Refused to
    /// an operator who may not change users and data in each environment erased, a dry run too.
    /// - Parameters:
    ///   - environments: the environments erased; both (and the account) when empty.
    ///   - reassigning: record types whose public records go to another user (by user record
    ///     name) rather than being deleted.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown user or reassignee;
    ///   ``CloudStoreError/accessDenied(_:)`` for the wrong operator.
    public func eraseUser(
        _ userRecordName: String, in container: ContainerIdentifier, environments: [Environment] = [],
        reassigning: [String: String] = [:], dryRun: Bool, by actor: OperatorIdentity
    ) throws -> UserErasure {
        let chosen = environments.isEmpty ? Environment.allCases : Array(Set(environments)).sorted { $0.rawValue < $1.rawValue }
        // Every environment's users change when the account goes: a developer erases development alone.
        try authorize(
            actor, .changes(.appUsers, environment: chosen.count == 1 ? chosen[0] : nil), on: OperatorTarget(container: container))
        for environment in chosen {
            try authorize(
                actor, .changes(.data, environment: environment), on: OperatorTarget(container: container, environment: environment))
        }
        guard let user = try user(userRecordName, in: container) else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
        for (_, other) in reassigning {
            guard other != userRecordName, try self.user(other, in: container) != nil else {
                throw CloudStoreError.notFound("Records can go only to another user of \(container), not to '\(other)'")
            }
        }
        var erasure = UserErasure(userRecordName: userRecordName, name: user.name, dryRun: dryRun)
        erasure.accountRemoved = Set(chosen) == Set(Environment.allCases)
        for environment in chosen {
            erasure.environments[environment] = try eraseUserData(userRecordName, container, environment, reassigning, dryRun: dryRun)
        }
        erasure.sessions = try credentials.openSessionCount(of: userRecordName, in: container, now: now)
        let counts = erasure.environments.values
        let summary =
            "\(user.auditLabel) in \(chosen.map(\.rawValue).joined(separator: " and ")): "
            + "\(counts.reduce(0) { $0 + $1.privateRecords }) private, \(counts.reduce(0) { $0 + $1.publicRecordsDeleted }) public "
            + "and \(counts.reduce(0) { $0 + $1.sharedRecords }) shared records"
            + (reassigning.isEmpty ? "" : ", \(counts.reduce(0) { $0 + $1.publicRecordsReassigned }) reassigned")
            + (erasure.accountRemoved ? ", account removed" : "")
        if dryRun {
            erasure.requestLogEntries = try requestLog.entries(
                RequestLogFilter(container: container.rawValue, user: userRecordName, limit: 10_000)
            )
            .count
            return erasure
        }
        let anonymous = "_erased_" + SecureToken.hex(bytes: 8)
        erasure.anonymousName = anonymous
        erasure.requestLogEntries = try requestLog.anonymiseUser(userRecordName, in: container, as: anonymous)
        try auditedCatalogChange(actor, "user.erase", container: container.rawValue, target: summary) {
            _ = try credentials.revokeSessions(of: userRecordName, in: container)
            if erasure.accountRemoved { _ = try credentials.deleteUser(userRecordName, in: container) }
        }
        return erasure
    }

    /// Erases (or counts) what `user` holds in one environment.
    private func eraseUserData(
        _ user: String, _ container: ContainerIdentifier, _ environment: Environment, _ reassigning: [String: String], dryRun: Bool
    ) throws -> UserErasure.Counts {
        let storage = try self.environment(container, environment)
        var counts = UserErasure.Counts()
        // What the user holds, found in one snapshot.
        struct Found {
            var privateZones: [StoredZone] = []
            var defaultZoneRecords: [String] = []
            var participations: [Share] = []
            var created: [(zone: StoredZone, names: [String])] = []
            var reassigned: [(zone: StoredZone, stored: [StoredRecord])] = []
            var subscriptions: [(DatabaseID, String)] = []
        }
        let found = try storage.read { reader -> Found in
            var found = Found()
            found.privateZones = try UserData.privateZones(of: user, reader)
            for zone in found.privateZones {
                var names: [String] = []
                try Self.eachRecord(in: zone, ofType: nil, reader: reader) { names.append($0.record.recordName) }
                let shares = try reader.shares(in: zone)
                counts.privateRecords += names.count + shares.count
                counts.shares += shares.count
                if zone.zoneID.zoneName == ZoneID.defaultZoneName { found.defaultZoneRecords = names + shares.map(\.recordName) }
            }
            found.participations = try reader.allShares().filter { share in
                // Those they were removed from too: a removed participant stays listed.
                share.owner != user && share.participants.contains { $0.userRecordName == user }
            }
            for (zone, place) in try UserData.zonesCreatedIn(by: user, reader) {
                var names: [String] = []
                var given: [StoredRecord] = []
                try Self.eachRecord(in: zone, ofType: nil, reader: reader) { stored in
                    guard stored.record.created.userRecordName == user else { return }
                    if place == "public", reassigning[stored.record.recordType] != nil {
                        given.append(stored)
                    } else {
                        names.append(stored.record.recordName)
                    }
                }
                if place == "public" { counts.publicRecordsDeleted += names.count } else { counts.sharedRecords += names.count }
                counts.publicRecordsReassigned += given.count
                if !names.isEmpty { found.created.append((zone, names)) }
                if !given.isEmpty { found.reassigned.append((zone, given)) }
            }
            found.subscriptions = try reader.allSubscriptions().filter { $0.user == user }.map {
                ($0.database, $0.subscription.subscriptionID)
            }
            return found
        }
        counts.privateZones = found.privateZones.count
        counts.participations = found.participations.count
        counts.subscriptions = found.subscriptions.count
        let tokens = try credentials.boundPushTokens(in: container, environment).filter { $0.userRecordName == user }
        counts.pushTokens = tokens.count
        guard !dryRun else { return counts }

        // Shares of others: left as the owner saving the share without the user would.
        for share in found.participations {
            do {
                try removeShareParticipant(
                    user, fromShare: share.recordName, zoneName: share.zoneID.zoneName, owner: share.owner, container, environment,
                    as: .user(share.owner))
            } catch CloudStoreError.notFound {
                // Removed before, or the share is gone: there is nothing they could lose.
            }
        }
        // A removed participant stays listed, so that they learn of it: an erased user is not kept.
        try storage.write { writer in
            for share in found.participations {
                guard let zone = try writer.zone(named: share.zoneID.zoneName, in: .private(share.owner)),
                    var current = try writer.shares(in: zone).first(where: { $0.recordName == share.recordName })
                else { continue }
                current.participants.removeAll { $0.userRecordName == user }
                try writer.saveShare(current, version: Share.version(ofTag: current.changeTag) + 1, in: zone)
            }
        }
        // Records the user created elsewhere: deleted as the zone's owner (the public database's
        // by an operator), so that each deletion is a tombstone in the zone's feed.
        for (zone, names) in found.created {
            let owner = zone.database.scope == .public ? Caller.operator() : Caller.user(zone.database.owner)
            let handle = try database(container, environment, database: zone.database, as: owner)
            try deleteRecords(names, zone: zone.zoneID.zoneName, in: handle)
        }
        try reassign(found.reassigned, reassigning, storage)
        // The private database: its zones deleted, the default zone emptied, as the user would.
        let own = try database(container, environment, database: .private(user), as: .user(user))
        let zones = found.privateZones.map(\.zoneID.zoneName).filter { $0 != ZoneID.defaultZoneName }
        for batch in stride(from: 0, to: zones.count, by: ModifyRequest.maximumOperations) {
            let results = try own.modifyZones(
                zones[batch..<min(batch + ModifyRequest.maximumOperations, zones.count)].map { ZoneOperation(.delete, zoneName: $0) })
            if case .failure(_, let error) = results.first(where: { if case .failure = $0 { true } else { false } }) { throw error }
        }
        try deleteRecords(found.defaultZoneRecords, zone: ZoneID.defaultZoneName, in: own)
        counts.keptVersions = try storage.write { writer in
            var forgotten = try writer.forgetHistory(of: .private(user), recordNames: nil)
            for (zone, names) in found.created {
                for batch in stride(from: 0, to: names.count, by: 500) {
                    forgotten += try writer.forgetHistory(
                        of: zone.database, recordNames: Array(names[batch..<min(batch + 500, names.count)]))
                }
            }
            for (database, id) in found.subscriptions { _ = try writer.deleteSubscription(id, of: user, in: database) }
            try writer.setRoles([], of: user)
            return forgotten
        }
        _ = try credentials.deletePushTokens(tokens.map(\.token))
        return counts
    }

    /// Deletes records by name through `handle`, a request's worth at a time.
    private func deleteRecords(_ names: [String], zone: String, in handle: CloudDatabase) throws {
        for batch in stride(from: 0, to: names.count, by: ModifyRequest.maximumOperations) {
            let operations = names[batch..<min(batch + ModifyRequest.maximumOperations, names.count)].map {
                RecordOperation(.forceDelete, recordName: $0)
            }
            let results = try handle.modify(ModifyRequest(operations: operations, zoneName: zone, atomic: false))
            for case .failure(_, let error) in results {
                guard case .notFound = error else { throw error }
            }
        }
    }

    /// Gives public records to other users, each as an update in its zone's feed.
    private func reassign(
        _ records: [(zone: StoredZone, stored: [StoredRecord])], _ reassigning: [String: String], _ storage: any EnvironmentStorage
    ) throws {
        let time = now
        for (zone, stored) in records {
            for batch in stride(from: 0, to: stored.count, by: 1000) {
                let part = Array(stored[batch..<min(batch + 1000, stored.count)])
                try storage.write { writer in
                    for old in part {
                        guard let current = try writer.record(named: old.record.recordName, in: zone),
                            let target = reassigning[current.record.recordType]
                        else { continue }
                        var record = current.record
                        record.created.userRecordName = target
                        record.modified = RecordStamp(timestamp: time, userRecordName: Caller.operatorRecordName, deviceID: "cumulus")
                        record.changeTag = ChangeTag.make()
                        // The creator is kept with the stored record from its insertion on.
                        try writer.delete(current, in: zone)
                        _ = try writer.insert(record, in: zone)
                        try writer.appendChange(
                            ChangeEntry(
                                recordName: record.recordName, recordType: record.recordType, kind: .updated, creator: target, time: time,
                                modifier: Caller.operatorRecordName),
                            in: zone)
                    }
                }
            }
        }
    }
}
