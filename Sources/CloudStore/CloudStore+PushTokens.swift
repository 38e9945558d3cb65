import Foundation

extension CloudStore {
    // MARK: - Push tokens

    /// Creates a push token for `tokens/create`, held by the caller when a user is signed in.
    ///
    /// The world may create tokens too (CloudKit JS asks before anyone signs in), so this is a
    /// write path open to anyone holding an API token: it is limited per client address, the
    /// tokens no user holds end after ``CloudStoreConfiguration/unboundPushTokenLifetime``, and a
    /// container's environment keeps at most ``CloudStoreConfiguration/maximumUnboundPushTokens``.
    /// A signed-in caller is limited per user too, and holds at most
    /// ``CloudStoreConfiguration/maximumPushTokensPerUser`` tokens: the oldest go. A token a
    /// user holds belongs to `session`, the web session that made it, and ends with it.
    /// - Throws: ``CloudStoreError/throttled(_:retryAfter:)`` past the rate,
    ///   ``CloudStoreError/quotaExceeded(_:)`` past the number of tokens no user holds.
    public func createPushToken(
        _ container: ContainerIdentifier, _ environment: Environment, apnsEnvironment: String, caller: Caller, session: String? = nil,
        clientAddress: String? = nil
    ) throws -> PushToken {
        try requireContainer(container)
        let user = caller.signedInUser
        try admitPushToken(container, environment, user: user, clientAddress: clientAddress)
        let token = PushToken(
            token: Data(SecureToken.randomBytes(32)).base64EncodedString(), container: container, environment: environment,
            apnsEnvironment: apnsEnvironment, userRecordName: user, created: now, session: user == nil ? nil : session)
        try credentials.insertPushToken(token)
        if let user { try keepNewestPushTokens(of: user, container, environment, keeping: token.token) }
        return token
    }

    /// Registers a push token for `tokens/register`: binds it to the signed-in caller (and to
    /// `session`, with which it then ends), or creates it when this server has not seen it (a
    /// client may hold one from before a reset).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a malformed token or one of another
    ///   container; ``CloudStoreError/accessDenied(_:)`` for a token another user holds — nobody
    ///   may take over someone else's notifications; the limits of
    ///   ``createPushToken(_:_:apnsEnvironment:caller:session:clientAddress:)``.
    /// - Parameter trace: where a refusal is recorded.
    @discardableResult
    public func registerPushToken(
        _ value: String, _ container: ContainerIdentifier, _ environment: Environment, apnsEnvironment: String, caller: Caller,
        session: String? = nil, clientAddress: String? = nil, trace: RequestTrace? = nil
    ) throws -> PushToken {
        guard !value.isEmpty, value.utf8.count <= 256,
            value.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+/=_-".unicodeScalars.contains($0))
            })
        else {
            throw CloudStoreError.badRequest("apnsToken must be 1 to 256 characters of base64")
        }
        let user = caller.signedInUser
        if let existing = try pushToken(value) {
            guard existing.container == container, existing.environment == environment else {
                throw CloudStoreError.badRequest("The apnsToken belongs to another container or environment")
            }
            if let holder = existing.userRecordName, holder != user {
                trace?.recordRefusal(
                    caller: caller.description, database: "", rule: "a push token is registered by the user who holds it",
                    why: "another user holds this token")
                throw CloudStoreError.accessDenied("The apnsToken is registered to another user")
            }
            guard let user else { return existing }
            try admitPushToken(container, environment, user: user, clientAddress: clientAddress)
            let time = now
            try credentials.bindPushToken(value, to: user, session: session, at: time)
            try keepNewestPushTokens(of: user, container, environment, keeping: value)
            var registered = existing
            registered.userRecordName = user
            registered.session = session
            registered.bound = existing.bound ?? time
            registered.lastUsed = time
            return registered
        }
        try requireContainer(container)
        try admitPushToken(container, environment, user: user, clientAddress: clientAddress)
        let token = PushToken(
            token: value, container: container, environment: environment, apnsEnvironment: apnsEnvironment, userRecordName: user,
            created: now, session: user == nil ? nil : session)
        try credentials.insertPushToken(token)
        if let user { try keepNewestPushTokens(of: user, container, environment, keeping: token.token) }
        return token
    }

    /// The push token with this value, or `nil`: also for a token its user left unused past
    /// ``CloudStoreConfiguration/boundPushTokenIdleLifetime``, which goes.
    public func pushToken(_ value: String) throws -> PushToken? {
        guard let token = try credentials.pushToken(value) else { return nil }
        guard !isIdle(token, at: now) else {
            _ = try credentials.deletePushTokens([value])
            return nil
        }
        return token
    }

    /// Whether a token a user holds went unused past ``CloudStoreConfiguration/boundPushTokenIdleLifetime`` at `time`.
    func isIdle(_ token: PushToken, at time: Int64) -> Bool {
        token.userRecordName != nil && time >= token.lastUsed + configuration.boundPushTokenIdleLifetime
    }

    /// The push token a courier poll or stream presents, or `nil` (unknown, revoked or idle too
    /// long); the use keeps a token its user holds alive.
    public func usePushToken(_ value: String) throws -> PushToken? {
        guard var token = try pushToken(value) else { return nil }
        let time = now
        // Noted at most once per resolution, not at every poll (a poll answered at once is
        // followed by the next): the time an operator reads is this close to the last poll.
        // The poll is a use too, which keeps the token alive.
        if token.userRecordName != nil, token.lastPolled.map({ time - $0 >= Self.pushTokenPollResolution }) ?? true {
            try credentials.notePushTokenPoll(value, at: time)
            token.lastUsed = max(token.lastUsed, time)
            token.lastPolled = time
        }
        return token
    }

    /// How close a push token's ``PushToken/lastPolled`` is to its last poll, in milliseconds:
    /// a poll is written down once this long after the one before, not at every poll.
    public static let pushTokenPollResolution: Int64 = 60_000

    /// The push tokens users hold in a container's environment (or `user` alone), by user,
    /// oldest first, with when each was created and last used: what an operator reviews.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown container.
    public func pushTokens(_ container: ContainerIdentifier, _ environment: Environment, of user: String? = nil) throws -> [PushToken] {
        try requireContainer(container)
        let tokens =
            try user.map { try credentials.pushTokens(of: $0, in: container, environment) }
            ?? credentials.boundPushTokens(in: container, environment)
        let time = now
        return tokens.filter { !isIdle($0, at: time) }
    }

    /// Revokes a push token a user holds in a container's environment, named by its ``PushToken/id``:
    /// its courier URL answers 404 and it is handed nothing more.
    /// - Returns: the token revoked.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for a token this container's environment does not hold.
    @discardableResult
    public func revokePushToken(
        id: String, in container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil
    )
        throws -> PushToken
    {
        try requireContainer(container)
        guard !id.isEmpty, let token = try credentials.boundPushTokens(in: container, environment).first(where: { $0.id == id }) else {
            throw CloudStoreError.notFound("No push token \(id) in \(container) \(environment)")
        }
        _ = try auditedCatalogChange(
            actor, "pushToken.revoke", container: container.rawValue, environment: environment.rawValue, target: id
        ) {
            try credentials.deletePushTokens([token.token])
        }
        return token
    }

    /// Lets one more push token in, or says why not: per user for a signed-in caller (whose
    /// tokens are capped), per client address and by count for the world.
    private func admitPushToken(_ container: ContainerIdentifier, _ environment: Environment, user: String?, clientAddress: String?) throws
    {
        let time = now
        if let user {
            if let wait = pushTokenLimiter.take("user \(container) \(user)", sharedBy: liveProcessCount, now: time) {
                counters.refused(at: .pushTokens)
                throw CloudStoreError.throttled("Too many push tokens requested for this user; try again later", retryAfter: wait)
            }
            return
        }
        // A client's requests may reach every process: each allows its share.
        if let wait = pushTokenLimiter.take(clientAddress ?? "-", sharedBy: liveProcessCount, now: time) {
            counters.refused(at: .pushTokens)
            throw CloudStoreError.throttled("Too many push tokens requested from this address; try again later", retryAfter: wait)
        }
        var count = try credentials.unboundPushTokenCount(in: container, environment)
        if count >= configuration.maximumUnboundPushTokens {
            count -= try credentials.deleteUnboundPushTokens(
                in: container, environment, createdBefore: time - configuration.unboundPushTokenLifetime)
        }
        guard count < configuration.maximumUnboundPushTokens else {
            counters.refused(at: .pushTokens)
            throw CloudStoreError.quotaExceeded(
                "\(container) \(environment) holds \(count) push tokens no user has registered, the most it keeps; sign in to register one")
        }
    }

    /// Lets a user's oldest push tokens go past ``CloudStoreConfiguration/maximumPushTokensPerUser``,
    /// never `kept`, the one just registered.
    private func keepNewestPushTokens(of user: String, _ container: ContainerIdentifier, _ environment: Environment, keeping kept: String)
        throws
    {
        let others = try credentials.pushTokens(of: user, in: container, environment).filter { $0.token != kept }
        let excess = others.count + 1 - max(configuration.maximumPushTokensPerUser, 1)
        guard excess > 0 else { return }
        _ = try credentials.deletePushTokens(others.prefix(excess).map(\.token))
    }
}
