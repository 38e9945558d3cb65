import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Sync: subscriptions, queued notifications, the change-feed inspector

    /// Every subscription of a container's environment, with its subscriber and database.
    public func subscriptions(in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws
        -> SubscriptionsView
    {
        let identifier = try existingContainer(container)
        let held = try store.subscriptions(identifier, environment)
        return SubscriptionsView(
            held.map { entry in
                SubscriptionsView.Entry(
                    database: entry.database.scope.rawValue, owner: entry.database.owner, userRecordName: entry.userRecordName,
                    subscription: SubscriptionWire.json(entry.subscription, owner: entry.database.owner).objectValue ?? [:])
            })
    }

    /// Deletes a user's subscription.
    /// - Parameters:
    ///   - database: `public`, `private` or `shared`; `owner` names a private or shared database's user.
    public func deleteSubscription(
        _ id: String, of user: String, database: DatabaseScope, owner: String?, in container: ContainerIdentifier, environment: Environment,
        as actor: OperatorIdentity
    ) throws -> SubscriptionDeletion {
        let (identifier, environment, target) = try databaseID(container, environment, database, owner)
        let (_, subscriber) = try existingUser(user, in: container)
        try store.deleteSubscription(id, of: subscriber.userRecordName, in: target, identifier, environment, by: actor)
        return SubscriptionDeletion(subscriptionID: id)
    }

    /// The push tokens with notifications waiting, and how many; a token shows only its first
    /// characters, as it is the courier's only credential.
    public func notificationQueues(
        in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> NotificationQueuesView {
        let queues = try store.notificationQueues(try existingContainer(container), environment)
        return NotificationQueuesView(
            queues.map { queue in
                NotificationQueuesView.Queue(
                    token: Self.tokenPrefix(queue.token), userRecordName: queue.userRecordName, waiting: Int64(queue.waiting))
            })
    }

    /// The push tokens users hold in a container's environment (or `user`'s alone: sign-in name
    /// or user record name), by user, with when each was created, bound and last used. A token
    /// is named by its ``PushToken/id`` and shows its first characters only.
    public func pushTokens(
        in container: ContainerIdentifier, environment: Environment, user: String? = nil, as actor: OperatorIdentity
    ) throws -> PushTokensView {
        let identifier = try existingContainer(container)
        let holder = try user.map { try existingUser($0, in: container).1 }
        let names = try userNames(identifier)
        let tokens = try store.pushTokens(identifier, environment, of: holder?.userRecordName)
        return PushTokensView(
            tokens.map { token in
                PushTokensView.Token(
                    id: token.id, token: Self.tokenPrefix(token.token), userRecordName: token.userRecordName,
                    userName: token.userRecordName.flatMap { names[$0] }, apnsEnvironment: token.apnsEnvironment, created: token.created,
                    bound: token.bound, lastUsed: token.lastUsed, session: token.session != nil)
            })
    }

    /// Revokes a push token a user holds, named by its id: its courier URL answers 404 from now on.
    public func revokePushToken(
        _ id: String, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> PushTokenRevocation {
        let identifier = try existingContainer(container)
        let revoked = try store.revokePushToken(id: id, in: identifier, environment, by: actor)
        return PushTokenRevocation(id: id, userRecordName: revoked.userRecordName)
    }

    /// The first characters of a push token, enough to tell tokens apart.
    static func tokenPrefix(_ token: String) -> String { String(token.prefix(8)) + "…" }

    /// A page of a zone's change log, newest first: the newest changes (before a position), or
    /// the oldest after a position or from a time on, of every record or of those whose name
    /// starts with `recordName`; with the zone's current sync token, the horizon below which
    /// tokens have expired, and who made each change, by name where the user has one.
    /// - Parameter zoneOwner: in the shared database, the owner of the zone (user record name),
    ///   which must be shared with `user`.
    public func changeLog(
        zone: String, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope, user: String?,
        zoneOwner: String? = nil, range: ChangeLogRange = ChangeLogRange(), as actor: OperatorIdentity
    ) throws -> ChangeLogView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let holder = try sharedZoneHolder(zone, owner: zoneOwner, identifier, environment, target, actor) ?? target
        let page = try store.changeLog(identifier, environment, database: holder, zoneName: zone, range, as: actor.caller)
        let names = try userNames(identifier)
        return ChangeLogView(
            zoneName: zone, lastSequence: page.lastSequence, horizon: page.horizon, syncToken: page.syncToken, hasOlder: page.hasOlder,
            hasNewer: page.hasNewer, contentsHidden: page.contentsHidden,
            entries: page.entries.map { entry in
                ChangeLogView.Entry(
                    sequence: entry.sequence, recordName: entry.recordName, recordType: entry.recordType, kind: entry.kind,
                    creator: entry.creator, modifiedBy: entry.modifier, modifiedByName: entry.modifier.flatMap { names[$0] },
                    via: entry.credential?.description,
                    time: entry.time)
            })
    }

    /// The owner's private database holding `zone` of a shared database, once the store has
    /// said the zone is shared with the database's user; `nil` outside the shared database.
    /// - Throws: ``CloudStoreError/zoneNotFound(_:)`` for a zone not shared with them.
    func sharedZoneHolder(
        _ zone: String, owner: String?, _ container: ContainerIdentifier, _ environment: Environment, _ target: DatabaseID,
        _ actor: OperatorIdentity
    ) throws -> DatabaseID? {
        guard target.scope == .shared else { return nil }
        // The owner by sign-in name or record name, as users are named everywhere else.
        let ownerRecordName = try owner.map { try existingUser($0, in: container).1.userRecordName }
        return try store.sharedZoneHolder(
            container, environment, shared: target, zoneName: zone, owner: ownerRecordName, as: actor.caller)
    }

    /// What a client holding `syncToken` would receive next from the zone's feed, as `reader`
    /// (`_world`, or an app user's sign-in or record name; by default the world in the public
    /// database and the database's user in another) would: the feed itself runs as that reader,
    /// so that what they may not read is left out. The held token comes back decoded: its zone,
    /// position and time.
    public func nextChanges(
        zone: String, syncToken: String?, in container: ContainerIdentifier, environment: Environment, database: DatabaseScope,
        user: String?, zoneOwner: String? = nil, reader: String? = nil, as actor: OperatorIdentity
    ) throws -> NextChangesView {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let holder = try sharedZoneHolder(zone, owner: zoneOwner, identifier, environment, target, actor)
        let token = syncToken?.isEmpty == false ? syncToken : nil
        let chosen = reader?.isEmpty == false ? reader : nil
        let readerCaller: Caller
        let readerName: String
        if chosen == Self.worldReader || (chosen == nil && database == .public) {
            (readerCaller, readerName) = (.world, Self.worldReader)
        } else {
            let (_, found) = try existingUser(chosen ?? target.owner, in: identifier)
            (readerCaller, readerName) = (.user(found.userRecordName), found.name)
        }
        let held = try token.map {
            try store.decodeSyncToken($0, identifier, environment, database: holder ?? target, zoneName: zone, as: actor.caller)
        }
        let simulated = try store.simulatedZoneChanges(
            identifier, environment, database: target, zoneOwner: holder?.owner, zoneName: zone, syncToken: token, reader: readerCaller,
            as: actor.caller)
        let changes = simulated.changes
        return NextChangesView(
            reader: readerName,
            heldToken: held.map { held in
                NextChangesView.HeldToken(
                    zoneName: held.zoneID?.zoneName, owner: held.zoneID?.ownerRecordName, isOfThisZone: held.isOfThisZone,
                    sequence: held.sequence, time: held.time)
            },
            records: changes.records.map { result in
                switch result {
                case .record(let record): .record(recordName: record.recordName, recordType: record.recordType)
                case .deleted(let name, _): .deleted(recordName: name)
                case .withheld(let name, _, _): .withheld(recordName: name)
                case .failure(let name, let error): .failure(recordName: name, serverErrorCode: CloudKitError(error).serverErrorCode)
                }
            },
            syncToken: changes.syncToken, moreComing: changes.moreComing, contentsHidden: simulated.contentsHidden)
    }

    /// How the reader who is no signed-in user, the world, is named.
    public static let worldReader = "_world"
}
