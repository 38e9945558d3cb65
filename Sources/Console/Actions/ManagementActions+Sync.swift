import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Sync: subscriptions, queued notifications, the change-feed inspector

    /// Every subscription of a container's environment, with its subscriber and database.
    public func subscriptions(in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let held = try store.subscriptions(identifier, try Self.environment(environment))
        return ["subscriptions": .array(held.map { entry in
            var object: JSONObject = [
                "database": .string(entry.database.scope.rawValue), "owner": .string(entry.database.owner),
                "userRecordName": .string(entry.userRecordName),
            ]
            for (key, value) in SubscriptionWire.json(entry.subscription, owner: entry.database.owner).objectValue ?? [:] {
                object[key] = value
            }
            return .object(object)
        })]
    }

    /// Deletes a user's subscription.
    /// - Parameters:
    ///   - database: `public`, `private` or `shared`; `owner` names a private or shared database's user.
    public func deleteSubscription(
        _ id: String, of user: String, database: String, owner: String?, in container: String, environment: String, as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (identifier, environment, target) = try databaseID(container, environment, database, owner)
        let (_, subscriber) = try existingUser(user, in: container)
        try store.deleteSubscription(id, of: subscriber.userRecordName, in: target, identifier, environment, by: actor)
        return ["subscriptionID": .string(id), "deleted": true]
    }

    /// The push tokens with notifications waiting, and how many; a token shows only its first
    /// characters, as it is the courier's only credential.
    public func notificationQueues(in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let queues = try store.notificationQueues(try existingContainer(container), try Self.environment(environment))
        return ["queues": .array(queues.map { queue in
            ["token": .string(Self.tokenPrefix(queue.token)), "userRecordName": Self.optional(queue.userRecordName), "waiting": .integer(Int64(queue.waiting))]
        })]
    }

    /// The push tokens users hold in a container's environment (or `user`'s alone: sign-in name
    /// or user record name), by user, with when each was created, bound and last used. A token
    /// is named by its ``PushToken/id`` and shows its first characters only.
    public func pushTokens(in container: String, environment: String, user: String? = nil, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let holder = try user.map { try existingUser($0, in: container).1 }
        let names = Dictionary(try store.users(identifier).map { ($0.userRecordName, $0.name) }, uniquingKeysWith: { first, _ in first })
        let tokens = try store.pushTokens(identifier, try Self.environment(environment), of: holder?.userRecordName)
        return ["pushTokens": .array(tokens.map { token in
            [
                "id": .string(token.id), "token": .string(Self.tokenPrefix(token.token)),
                "userRecordName": Self.optional(token.userRecordName), "userName": Self.optional(token.userRecordName.flatMap { names[$0] }),
                "apnsEnvironment": .string(token.apnsEnvironment), "created": Self.time(token.created),
                "bound": token.bound.map(Self.time) ?? .null, "lastUsed": Self.time(token.lastUsed),
                "session": .bool(token.session != nil),
            ]
        })]
    }

    /// Revokes a push token a user holds, named by its id: its courier URL answers 404 from now on.
    public func revokePushToken(_ id: String, in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let environment = try Self.environment(environment)
        let revoked = try store.revokePushToken(id: id, in: identifier, environment, by: actor)
        return ["id": .string(id), "userRecordName": Self.optional(revoked.userRecordName), "revoked": true]
    }

    /// The first characters of a push token, enough to tell tokens apart.
    static func tokenPrefix(_ token: String) -> String { String(token.prefix(8)) + "…" }

    /// A zone's change log after a sequence, or from a time on, tombstones included, with the
    /// zone's current sync token and the horizon below which tokens have expired.
    public func changeLog(
        zone: String, in container: String, environment: String, database: String, user: String?, after: Int64?, since: Int64?,
        as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let page = try store.changeLog(identifier, environment, database: target, zoneName: zone, after: after, since: since, as: actor.caller)
        return [
            "zoneName": .string(zone), "lastSequence": .integer(page.lastSequence), "horizon": .integer(page.horizon),
            "syncToken": .string(page.syncToken),
            "entries": .array(page.entries.map { entry in
                [
                    "sequence": .integer(entry.sequence), "recordName": .string(entry.recordName), "recordType": .string(entry.recordType),
                    "kind": .string(entry.kind), "creator": .string(entry.creator), "time": Self.time(entry.time),
                ]
            }),
        ]
    }

    /// What a client holding `syncToken` would receive next from the zone's feed (as one who
    /// may read everything): the next page's records and tombstones, its token, whether more waits.
    public func nextChanges(
        zone: String, syncToken: String?, in container: String, environment: String, database: String, user: String?,
        as actor: OperatorIdentity
    ) throws -> JSONValue {
        let (identifier, environment, target) = try databaseID(container, environment, database, user)
        let changes = try store.database(identifier, environment, database: target, as: actor.caller)
            .zoneChanges(zoneName: zone, syncToken: syncToken?.isEmpty == false ? syncToken : nil, desiredKeys: [])
        return [
            "records": .array(changes.records.map { result in
                switch result {
                case .record(let record): ["recordName": .string(record.recordName), "recordType": .string(record.recordType)]
                case .deleted(let name, _): ["recordName": .string(name), "deleted": true]
                case .withheld(let name, _, _): ["recordName": .string(name)]
                case .failure(let name, let error): ["recordName": Self.optional(name), "serverErrorCode": .string(CloudKitError(error).serverErrorCode)]
                }
            }),
            "syncToken": .string(changes.syncToken), "moreComing": .bool(changes.moreComing),
        ]
    }
}
