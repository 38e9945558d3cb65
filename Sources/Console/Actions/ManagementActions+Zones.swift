import CloudKitWire
import CloudStore

extension ManagementActions {
    /// The zones of one database, the default zone first, each with its records and their bytes.
    /// - Parameters:
    ///   - database: `public`, `private` or `shared`.
    ///   - user: the owner of a private or shared database (sign-in name or user record name).
    public func zones(
        in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?, as actor: OperatorIdentity
    ) throws -> ZonesView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let handle = try store.database(identifier, environment, database: target, as: actor.caller)
        // The shared database's zones are counted through the user's shares instead, below.
        let usage = target.scope == .shared ? [] : try store.zoneUsage(identifier, environment)
        let zones = try handle.zones().map { zone in
            let records: Int64
            let bytes: Int64
            if target.scope == .shared {
                // A zone of the shared database is its owner's: counted as far as the user's
                // shares reach into it, which may be one hierarchy of it.
                let reached = try handle.reaching(owner: zone.zoneID.ownerRecordName).usage(ofZone: zone.zoneID.zoneName)
                (records, bytes) = (reached.counts.values.reduce(0, +), reached.bytes)
            } else {
                let figures = usage.first { $0.database == target && $0.zoneID == zone.zoneID }
                (records, bytes) = (figures?.records ?? 0, figures?.recordBytes ?? 0)
            }
            return ZonesView.Zone(
                zoneName: zone.zoneID.zoneName, ownerRecordName: zone.zoneID.ownerRecordName, atomic: zone.atomic, records: records,
                recordBytes: bytes)
        }
        return ZonesView(database: target.scope, owner: target.owner, zones: zones)
    }

    /// Creates a zone in a private database.
    public func createZone(
        _ zoneName: String, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        as actor: OperatorIdentity
    ) throws -> ZoneChangeView {
        try modifyZone(.create, zoneName, container, environment, database, user, actor)
    }

    /// Deletes a zone with every record in it.
    public func deleteZone(
        _ zoneName: String, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        as actor: OperatorIdentity
    ) throws -> ZoneChangeView {
        try modifyZone(.delete, zoneName, container, environment, database, user, actor)
    }

    /// Takes `user` out of the shares of `owner`'s zone, as `user` deleting it from their shared
    /// database does in CloudKit: the zone leaves their shared database; the owner keeps it.
    /// - Parameters:
    ///   - user: the participant; `owner` the zone's owner; each a sign-in name or user record name.
    public func leaveSharedZone(
        _ zoneName: String, owner: String, user: String, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> SharedZoneLeaving {
        let (identifier, participant) = try existingUser(user, in: container)
        let (_, ownerUser) = try existingUser(owner, in: container)
        let shares: [String]
        do {
            shares = try store.leaveSharedZone(
                zoneName, owner: ownerUser.userRecordName, participant: participant.userRecordName, identifier, environment,
                as: actor.caller, by: actor)
        } catch CloudStoreError.zoneNotFound {
            // The zone may well exist: what is missing is a share of it with this user.
            throw CloudStoreError.notFound(
                "\(participant.name) is in no share of \(ownerUser.name)'s zone \(zoneName): there is nothing to leave.")
        }
        return SharedZoneLeaving(
            zoneName: zoneName, ownerRecordName: ownerUser.userRecordName, participant: participant.userRecordName, shares: shares)
    }

    private func modifyZone(
        _ kind: ZoneOperation.Kind, _ zoneName: String, _ container: ContainerIdentifier, _ environment: Environment,
        _ database: DatabaseScope, _ user: String?, _ actor: OperatorIdentity
    ) throws -> ZoneChangeView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        var handle = try store.database(identifier, environment, database: target, as: actor.caller)
        handle.auditActor = actor
        handle.auditPlace = "\(database)\(user.map { " of \($0)" } ?? "")"
        switch try handle.modifyZones([ZoneOperation(kind, zoneName: zoneName)]).first {
        case .zone(let zone):
            return ZoneChangeView(zone.zoneID, deleted: false)
        case .deleted(let zoneID):
            return ZoneChangeView(zoneID, deleted: true)
        case .failure(_, let error):
            throw error
        case nil:
            throw CloudStoreError.internalError("modifyZones returned no result")
        }
    }

    /// The database a request names, in a container that must exist: the public one, or a user's
    /// private or shared one.
    func databaseID(_ container: ContainerIdentifier, _ environment: Environment, _ scope: DatabaseScope, _ user: String?) throws
        -> (ContainerIdentifier, Environment, DatabaseID)
    {
        let identifier = try existingContainer(container)
        if scope == .public { return (identifier, environment, .public) }
        guard let user, !user.isEmpty else {
            throw CloudStoreError.badRequest("The \(scope) database belongs to a user: name one")
        }
        let (_, found) = try existingUser(user, in: container)
        return (identifier, environment, DatabaseID(scope: scope, owner: found.userRecordName))
    }
}

extension OperatorIdentity {
    /// The caller CloudStore sees for this operator.
    var caller: Caller { .operator() }
}
