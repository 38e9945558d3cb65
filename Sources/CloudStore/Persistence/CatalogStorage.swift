/// The server-wide catalog: containers and settings.
protocol CatalogStorage: Sendable {
    /// The server's secret, created on first use, used to sign tokens and markers.
    func secret() throws -> [UInt8]
    /// Replaces the server's secret with a new random one.
    func rotateSecret() throws
    /// Every container, by identifier.
    func containers() throws -> [ContainerInfo]
    /// The container with `identifier`, if it exists.
    func container(_ identifier: ContainerIdentifier) throws -> ContainerInfo?
    /// Registers a container.
    /// - Throws: ``CloudStoreError/exists(_:)`` when it is already registered.
    func createContainer(_ identifier: ContainerIdentifier, created: Int64) throws -> ContainerInfo
}

/// The catalog's credentials: API tokens, server-to-server keys, users, web sessions and push tokens.
protocol CredentialStorage: Sendable {
    /// A number that every change to the catalog moves, in the same transaction, whichever
    /// process makes it; caches of catalog rows are valid while it stays the same.
    func changeCounter() throws -> Int64

    func insertAPIToken(_ token: APIToken) throws
    func apiToken(_ token: String) throws -> APIToken?
    func apiTokens(in container: ContainerIdentifier) throws -> [APIToken]
    /// Removes an API token; `false` when there was none.
    func deleteAPIToken(_ token: String) throws -> Bool

    func insertServerKey(_ key: ServerKey) throws
    func serverKey(_ keyID: String) throws -> ServerKey?
    func serverKeys(in container: ContainerIdentifier) throws -> [ServerKey]
    /// Removes a server-to-server key; `false` when there was none.
    func deleteServerKey(_ keyID: String) throws -> Bool

    /// Adds a user. - Throws: ``CloudStoreError/exists(_:)`` when the name is taken in the container.
    func insertUser(_ user: AppUser, passwordHash: String) throws
    func user(_ userRecordName: String, in container: ContainerIdentifier) throws -> AppUser?
    /// The user called `name` (without regard to case) and the hash of their password.
    func user(named name: String, in container: ContainerIdentifier) throws -> (user: AppUser, passwordHash: String)?
    func users(in container: ContainerIdentifier) throws -> [AppUser]
    /// The user with this email address (compared without case) in a container.
    func user(email: String, in container: ContainerIdentifier) throws -> AppUser?
    /// Sets whether a user may be discovered; false when there is no such user.
    func setDiscoverable(_ discoverable: Bool, of userRecordName: String, in container: ContainerIdentifier) throws -> Bool
    /// Replaces a user's password hash and, in the same transaction, ends every session of
    /// theirs and deletes the push tokens they hold.
    func setPasswordHash(_ hash: String, of userRecordName: String, in container: ContainerIdentifier) throws
    /// Removes a user, their sessions, and the push tokens they hold; `false` when there was none.
    func deleteUser(_ userRecordName: String, in container: ContainerIdentifier) throws -> Bool

    func insertSession(_ session: WebSession) throws
    /// The session with `id` and when it was last seen in use, unless it was revoked.
    func session(_ id: String) throws -> (session: WebSession, lastSeen: Int64)?
    /// Ends a session, and deletes the push tokens created or registered in it.
    func revokeSession(_ id: String) throws
    /// Ends every session of a user and deletes the push tokens they hold; returns how many
    /// sessions were open.
    func revokeSessions(of userRecordName: String, in container: ContainerIdentifier) throws -> Int
    /// Ends the sessions opened for a container's environment (and those that kept no
    /// environment), marked as ended by a reset, and deletes the push tokens users hold there;
    /// returns how many sessions were open.
    func revokeSessionsForReset(of container: ContainerIdentifier, _ environment: Environment) throws -> Int
    /// How many sessions a reset of a container's environment would end (not past their expiry at `now`).
    func openSessionCount(in container: ContainerIdentifier, _ environment: Environment, now: Int64) throws -> Int
    /// Whether the session with `id` was ended by a reset of its environment.
    func sessionWasEndedByReset(_ id: String) throws -> Bool
    /// How many sessions of a user are open (not revoked, not past their expiry at `now`).
    func openSessionCount(of userRecordName: String, in container: ContainerIdentifier, now: Int64) throws -> Int
    /// Records that a session was used at `time`. Not a change caches need to see: the change
    /// counter does not move.
    func touchSession(_ id: String, at time: Int64) throws

    func insertPushToken(_ token: PushToken) throws
    /// The push tokens among `values` that exist, in no particular order: one read for many.
    func pushTokens(among values: [String]) throws -> [PushToken]
    /// The push tokens `user` holds in the container's environment, oldest bound first.
    func pushTokens(of user: String, in container: ContainerIdentifier, _ environment: Environment) throws -> [PushToken]
    /// The push tokens users hold in the container's environment, by user, oldest bound first.
    func boundPushTokens(in container: ContainerIdentifier, _ environment: Environment) throws -> [PushToken]
    /// Binds a push token to a user, for a session, at `time` (also its last use).
    func bindPushToken(_ token: String, to userRecordName: String, session: String?, at time: Int64) throws
    /// Records that a push token was used at `time`. Not a change caches need to see.
    func touchPushToken(_ token: String, at time: Int64) throws
    /// Records that the courier was polled with a push token at `time` (also a use of it). Not
    /// a change caches need to see.
    func notePushTokenPoll(_ token: String, at time: Int64) throws
    /// Deletes push tokens; returns how many there were.
    func deletePushTokens(_ tokens: [String]) throws -> Int
    /// How many push tokens of a container's environment no user holds.
    func unboundPushTokenCount(in container: ContainerIdentifier, _ environment: Environment) throws -> Int
    /// Removes push tokens no user holds that were made before `time`; returns how many.
    func deleteUnboundPushTokens(in container: ContainerIdentifier, _ environment: Environment, createdBefore time: Int64) throws -> Int
}

extension CredentialStorage {
    /// The push token with this value, or `nil`: the one-value case of ``pushTokens(among:)``.
    func pushToken(_ token: String) throws -> PushToken? { try pushTokens(among: [token]).first }
}

/// The catalog's console operators, their sessions and management tokens.
protocol OperatorStorage: Sendable {
    /// Adds an operator. - Throws: ``CloudStoreError/exists(_:)`` when the name is taken.
    func insertOperator(_ account: OperatorAccount, passwordHash: String) throws
    func operators() throws -> [OperatorAccount]
    /// The operator called `name` (without regard to case) and the hash of their password.
    func operatorAccount(named name: String) throws -> (account: OperatorAccount, passwordHash: String)?
    /// Replaces an operator's password hash and ends their sessions, in one transaction.
    func setOperatorPasswordHash(_ hash: String, of name: String) throws -> Bool
    /// Removes an operator with their sessions and management tokens; `false` when there was none.
    func deleteOperator(named name: String) throws -> Bool
    /// Sets an operator's role and containers (none: every container); `false` when there is no such operator.
    func setOperatorAccess(role: OperatorRole, containers: [ContainerIdentifier], of name: String) throws -> Bool

    func insertOperatorSession(_ session: OperatorSession, lastSeen: Int64) throws
    /// The session with `id` and when it was last used, unless it was revoked.
    func operatorSession(_ id: String) throws -> (session: OperatorSession, lastSeen: Int64)?
    func revokeOperatorSession(_ id: String) throws
    /// Records a use of a session, without moving the change counter.
    func touchOperatorSession(_ id: String, at time: Int64) throws

    func insertManagementToken(_ token: ManagementToken, secretHash: String) throws
    /// The unrevoked token with `id` and the hash of its secret.
    func managementToken(_ id: String) throws -> (token: ManagementToken, secretHash: String)?
    func managementTokens() throws -> [ManagementToken]
    /// Revokes a token; `false` when there was no such unrevoked token.
    func revokeManagementToken(_ id: String) throws -> Bool
    /// Records a use of a token, without moving the change counter.
    func touchManagementToken(_ id: String, at time: Int64) throws
}

/// What the store keeps about the development-to-production lifecycle.
protocol LifecycleStorage: Sendable {
    /// Adds a deployment to production's history.
    func insertDeployment(_ deployment: SchemaDeployment) throws
    /// A container's deployments, the latest first.
    func deployments(in container: ContainerIdentifier, limit: Int) throws -> [SchemaDeployment]
    /// Adds an operator action to the audit trail, and forgets entries from before `forgetBefore`.
    func insertAuditEntry(_ entry: AuditEntry, forgetBefore: Int64) throws
    /// The audit entries `filter` selects, newest first.
    func auditEntries(_ filter: AuditFilter) throws -> [AuditEntry]
    /// Adds entries moved from an environment's audit outbox, in one transaction, each once
    /// however often it is moved; forgets entries from before `forgetBefore`.
    func insertAuditEntries(fromOutbox entries: [AuditOutboxEntry], forgetBefore: Int64) throws
    /// The limits an operator set for an environment; `nil` when none were set.
    func limits(of container: ContainerIdentifier, _ environment: Environment) throws -> EnvironmentLimits?
    /// Sets an environment's limits.
    func setLimits(_ limits: EnvironmentLimits, of container: ContainerIdentifier, _ environment: Environment) throws
}
