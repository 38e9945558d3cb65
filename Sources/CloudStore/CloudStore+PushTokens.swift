import Foundation

extension CloudStore {
    // MARK: - Push tokens

    /// Creates a push token for `tokens/create`, held by the caller when a user is signed in.
    ///
    /// The world may create tokens too (CloudKit JS asks before anyone signs in), so this is a
    /// write path open to anyone holding an API token: it is limited per client address, the
    /// tokens no user holds end after ``CloudStoreConfiguration/unboundPushTokenLifetime``, and a
    /// container's environment keeps at most ``CloudStoreConfiguration/maximumUnboundPushTokens``.
    /// - Throws: ``CloudStoreError/throttled(_:retryAfter:)`` past the rate,
    ///   ``CloudStoreError/quotaExceeded(_:)`` past the number of tokens no user holds.
    public func createPushToken(
        _ container: ContainerIdentifier, _ environment: Environment, apnsEnvironment: String, caller: Caller, clientAddress: String? = nil
    ) throws -> PushToken {
        try requireContainer(container)
        let user = caller.signedInUser
        if user == nil { try admitUnboundPushToken(container, environment, clientAddress: clientAddress) }
        let token = PushToken(
            token: Data(SecureToken.randomBytes(32)).base64EncodedString(), container: container, environment: environment,
            apnsEnvironment: apnsEnvironment, userRecordName: user, created: now)
        try credentials.insertPushToken(token)
        return token
    }

    /// Registers a push token for `tokens/register`: binds it to the signed-in caller, or creates
    /// it when this server has not seen it (a client may hold one from before a reset).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a malformed token or one of another
    ///   container; ``CloudStoreError/accessDenied(_:)`` for a token another user holds — nobody
    ///   may take over someone else's notifications; the limits of
    ///   ``createPushToken(_:_:apnsEnvironment:caller:clientAddress:)`` for a new token.
    @discardableResult
    public func registerPushToken(
        _ value: String, _ container: ContainerIdentifier, _ environment: Environment, apnsEnvironment: String, caller: Caller,
        clientAddress: String? = nil
    ) throws -> PushToken {
        guard !value.isEmpty, value.utf8.count <= 256,
            value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+/=_-".unicodeScalars.contains($0)) })
        else {
            throw CloudStoreError.badRequest("apnsToken must be 1 to 256 characters of base64")
        }
        let user = caller.signedInUser
        if let existing = try credentials.pushToken(value) {
            guard existing.container == container, existing.environment == environment else {
                throw CloudStoreError.badRequest("The apnsToken belongs to another container or environment")
            }
            if let holder = existing.userRecordName, holder != user {
                throw CloudStoreError.accessDenied("The apnsToken is registered to another user")
            }
            if let user, existing.userRecordName == nil {
                try credentials.setPushTokenUser(value, userRecordName: user)
            }
            var registered = existing
            registered.userRecordName = existing.userRecordName ?? user
            return registered
        }
        try requireContainer(container)
        if user == nil { try admitUnboundPushToken(container, environment, clientAddress: clientAddress) }
        let token = PushToken(
            token: value, container: container, environment: environment, apnsEnvironment: apnsEnvironment, userRecordName: user,
            created: now)
        try credentials.insertPushToken(token)
        return token
    }

    /// The push token with this value, or `nil`.
    public func pushToken(_ value: String) throws -> PushToken? { try credentials.pushToken(value) }

    /// Lets one more push token no user holds in, or says why not.
    private func admitUnboundPushToken(_ container: ContainerIdentifier, _ environment: Environment, clientAddress: String?) throws {
        let time = now
        // A client's requests may reach every process: each allows its share.
        if let wait = pushTokenLimiter.take(clientAddress ?? "-", sharedBy: liveProcessCount, now: time) {
            throw CloudStoreError.throttled("Too many push tokens requested from this address; try again later", retryAfter: wait)
        }
        var count = try credentials.unboundPushTokenCount(in: container, environment)
        if count >= configuration.maximumUnboundPushTokens {
            count -= try credentials.deleteUnboundPushTokens(
                in: container, environment, createdBefore: time - configuration.unboundPushTokenLifetime)
        }
        guard count < configuration.maximumUnboundPushTokens else {
            throw CloudStoreError.quotaExceeded(
                "\(container) \(environment) holds \(count) push tokens no user has registered, the most it keeps; sign in to register one")
        }
    }
}
