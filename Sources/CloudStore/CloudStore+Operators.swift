import Crypto
import Foundation

extension CloudStore {
    // MARK: - Operator accounts

    /// Adds a console operator with a role, limited to `containers` (none: every container).
    /// - Throws: ``CloudStoreError/exists(_:)`` when the name is taken, ``CloudStoreError/badRequest(_:)``
    ///   for an unusable name or a password shorter than
    ///   ``CloudStoreConfiguration/minimumOperatorPasswordLength``, ``CloudStoreError/notFound(_:)``
    ///   for a container that does not exist, ``CloudStoreError/accessDenied(_:)`` when `actor` is
    ///   no owner of every container.
    @discardableResult
    public func addOperator(
        _ name: String, password: String, role: OperatorRole = .owner, containers: [ContainerIdentifier] = [],
        by actor: OperatorIdentity? = nil
    ) throws -> OperatorAccount {
        try authorize(actor, .changes(.operators))
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= 64,
            trimmed.unicodeScalars.allSatisfy({
                $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "._-@".unicodeScalars.contains($0))
            })
        else {
            throw CloudStoreError.badRequest("An operator name is 1 to 64 letters, digits, '.', '_', '-' or '@'")
        }
        try Self.checkOperatorPassword(password)
        let account = OperatorAccount(name: trimmed, created: now, role: role, containers: try existingContainers(containers))
        let hash = try hashPasswordOnPool(password)
        try auditedCatalogChange(actor, "operator.add", container: nil, target: name) {
            try operatorStorage.insertOperator(account, passwordHash: hash)
        }
        return account
    }

    /// Every operator, by name.
    public func operators() throws -> [OperatorAccount] { try operatorStorage.operators() }

    /// Sets an operator's password and ends their console sessions.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown operator.
    public func setOperatorPassword(_ password: String, of name: String, by actor: OperatorIdentity? = nil) throws {
        try authorize(actor, .changes(.operators))
        try Self.checkOperatorPassword(password)
        let hash = try hashPasswordOnPool(password)
        guard
            try auditedCatalogChange(
                actor, "operator.password", container: nil, target: name,
                {
                    try operatorStorage.setOperatorPasswordHash(hash, of: name)
                })
        else {
            throw CloudStoreError.notFound("No operator named '\(name)'")
        }
    }

    /// Removes an operator, ending their sessions and revoking their management tokens at once.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown operator, ``CloudStoreError/accessDenied(_:)``
    ///   when `actor` is no owner of every container, or (but for the local command line) would
    ///   remove the last owner of every container.
    public func removeOperator(_ name: String, by actor: OperatorIdentity? = nil) throws {
        try authorize(actor, .changes(.operators))
        if let actor, actor != .local {
            // Someone with the data directory can always make another; a remote owner should not lock everyone out.
            let owners = try operatorStorage.operators().filter { $0.role == .owner && $0.containers.isEmpty }
            if owners.map({ $0.name.lowercased() }) == [name.lowercased()] {
                throw CloudStoreError.accessDenied("\(owners[0].name) is the last owner of every container; make another owner first")
            }
        }
        guard
            try auditedCatalogChange(
                actor, "operator.remove", container: nil, target: name, { try operatorStorage.deleteOperator(named: name) })
        else {
            throw CloudStoreError.notFound("No operator named '\(name)'")
        }
    }

    static func checkOperatorPassword(_ password: String) throws {
        guard password.count >= CloudStoreConfiguration.minimumOperatorPasswordLength else {
            throw CloudStoreError.badRequest(
                "An operator password needs at least \(CloudStoreConfiguration.minimumOperatorPasswordLength) characters")
        }
    }

    // MARK: - Console sessions

    /// Checks an operator's name and password and opens a console session, waiting for a
    /// password thread. Guesses are slowed as app sign-in's are.
    /// - Returns: the session and the secret the browser keeps in its cookie (shown only here).
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` for a wrong name or password,
    ///   ``CloudStoreError/throttled(_:retryAfter:)`` after too many failures.
    public func signInOperator(_ name: String, password: String, clientAddress: String?) throws -> (
        session: OperatorSession, secret: String
    ) {
        let account = SignInAccount.operator(name: name.trimmingCharacters(in: .whitespaces).lowercased())
        try signInThrottle.check(account: account, address: clientAddress, now: now)
        let hasher = configuration.passwordHasher
        let found = try operatorStorage.operatorAccount(named: name.trimmingCharacters(in: .whitespaces))
        let verified = try passwordPool.run(orThrow: Self.passwordPoolFull) { () -> Bool in
            hasher.verify(password: password, against: found?.passwordHash ?? Self.decoyOperatorHash)
        }
        guard let found, verified else {
            signInThrottle.recordFailure(account: account, address: clientAddress, now: now)
            throw CloudStoreError.authenticationFailed("Incorrect name or password")
        }
        signInThrottle.recordSuccess(account: account, address: clientAddress)
        let secret = SecureToken.hex(bytes: 32)
        let started = now
        let session = OperatorSession(
            id: Self.digest(secret), operatorName: found.account.name, csrfToken: SecureToken.hex(bytes: 32), created: started,
            expires: started + configuration.operatorSessionMaximumAge)
        try operatorStorage.insertOperatorSession(session, lastSeen: started)
        return (session, secret)
    }

    /// The console session a cookie's secret proves; the use counts as activity.
    /// - Throws: ``CloudStoreError/authenticationRequired(_:)`` when there is none, it was ended,
    ///   has gone unused for ``CloudStoreConfiguration/operatorSessionIdleLifetime`` or reached its
    ///   maximum age.
    /// - Parameter countingUse: whether the check counts as activity; a stream checking that its
    ///   session still holds does not keep it alive.
    public func operatorSession(secret: String, countingUse: Bool = true) throws -> OperatorSession {
        guard secret.utf8.count == 64, secret.utf8.allSatisfy(Self.isHexDigit) else {
            throw CloudStoreError.authenticationRequired("Sign in to the console")
        }
        let time = now
        let (session, lastSeen) = try openOperatorSession(Self.digest(secret), at: time)
        if countingUse, sessionActivity.touch(session.id, at: time, stored: lastSeen) {
            try operatorStorage.touchOperatorSession(session.id, at: time)
        }
        return session
    }

    /// The console session with `id` (the digest of its secret) when it is still open at `time`.
    /// - Throws: ``CloudStoreError/authenticationRequired(_:)`` when there is none, it was ended,
    ///   has gone unused too long or reached its maximum age.
    func openOperatorSession(_ id: String, at time: Int64) throws -> (session: OperatorSession, lastSeen: Int64) {
        guard let (session, lastSeen) = try operatorStorage.operatorSession(id) else {
            throw CloudStoreError.authenticationRequired("Sign in to the console")
        }
        guard time < session.expires else { throw CloudStoreError.authenticationRequired("The console session has ended; sign in again") }
        let active = sessionActivity.lastSeen(session.id, stored: lastSeen)
        guard time < active + configuration.operatorSessionIdleLifetime else {
            throw CloudStoreError.authenticationRequired("The console session expired after a while unused; sign in again")
        }
        return (session, lastSeen)
    }

    /// Ends a console session.
    public func signOutOperator(secret: String) throws {
        guard secret.utf8.count == 64 else { return }
        let id = Self.digest(secret)
        try operatorStorage.revokeOperatorSession(id)
        sessionActivity.forget(id)
    }

    // MARK: - Management tokens

    /// Makes a management token for an operator: scripts send it as `Authorization: Bearer …`.
    ///
    /// A management token cannot make another: a leaked one would otherwise outlive its own
    /// revocation. An operator signed in to the console makes tokens for themselves; the
    /// command line, holding the data directory, for anyone.
    /// - Parameter actor: who asks, written to the audit trail with the token; `nil` (the
    ///   default) is whoever holds this store, as `.local`, unaudited.
    /// - Returns: the token's description and its text, which is shown only here.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown operator,
    ///   ``CloudStoreError/accessDenied(_:)`` when a management token asks, or an operator asks
    ///   for another's token.
    public func createManagementToken(
        for operatorName: String, name: String, by actor: OperatorIdentity? = nil
    ) throws -> (token: ManagementToken, text: String) {
        switch actor ?? .local {
        case .token:
            throw CloudStoreError.accessDenied(
                "A management token cannot create management tokens: sign in to the console, or run `cumulus operators token` on the server"
            )
        case .session(let signedIn, _, _) where signedIn != operatorName:
            throw CloudStoreError.accessDenied("An operator creates management tokens for themselves only")
        case .session, .local:
            break
        }
        guard let account = try operatorStorage.operatorAccount(named: operatorName)?.account else {
            throw CloudStoreError.notFound("No operator named '\(operatorName)'")
        }
        let label = name.trimmingCharacters(in: .whitespaces)
        guard !label.isEmpty, label.count <= 128, !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CloudStoreError.badRequest("A management token's name is 1 to 128 characters without control characters")
        }
        let id = SecureToken.hex(bytes: 8)
        let secret = SecureToken.hex(bytes: 32)
        let token = ManagementToken(id: id, operatorName: account.name, name: label, created: now, lastUsed: nil)
        try auditedCatalogChange(
            actor, "management-token.create", container: nil, target: "\(token.name) (\(token.id)) of \(token.operatorName)"
        ) {
            try operatorStorage.insertManagementToken(token, secretHash: Self.digest(secret))
        }
        return (token, "\(Self.managementTokenPrefix)\(id)_\(secret)")
    }

    /// Every unrevoked management token.
    public func managementTokens() throws -> [ManagementToken] { try operatorStorage.managementTokens() }

    /// The unrevoked management tokens `actor` may see: every one for an owner of every
    /// container, else their own.
    public func managementTokens(visibleTo actor: OperatorIdentity) throws -> [ManagementToken] {
        let tokens = try operatorStorage.managementTokens()
        guard try operatorAccess(of: actor) != .everything else { return tokens }
        return tokens.filter { $0.operatorName.lowercased() == actor.operatorName.lowercased() }
    }

    /// Revokes a management token: it is refused from the next request on.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such token.
    public func revokeManagementToken(_ id: String, by actor: OperatorIdentity? = nil) throws {
        if let actor, actor != .local, try operatorAccess(of: actor) != .everything,
            let (token, _) = try operatorStorage.managementToken(id), token.operatorName.lowercased() != actor.operatorName.lowercased()
        {
            throw CloudStoreError.accessDenied("Only an owner of every container revokes another operator's management token")
        }
        guard
            try auditedCatalogChange(
                actor, "management-token.revoke", container: nil, target: id, { try operatorStorage.revokeManagementToken(id) })
        else {
            throw CloudStoreError.notFound("No management token \(id)")
        }
    }

    /// The token a management token's text proves.
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` for a malformed, unknown, revoked or
    ///   forged token.
    public func managementToken(text: String) throws -> ManagementToken {
        let invalid = CloudStoreError.authenticationFailed("The management token is not valid")
        guard text.hasPrefix(Self.managementTokenPrefix) else { throw invalid }
        let parts = text.dropFirst(Self.managementTokenPrefix.count).split(separator: "_")
        guard parts.count == 2, parts[0].utf8.count == 16, parts[1].utf8.count == 64,
            let (token, hash) = try operatorStorage.managementToken(String(parts[0])),
            SecureToken.constantTimeEquals(Self.digest(String(parts[1])), hash)
        else { throw invalid }
        let time = now
        if token.lastUsed.map({ time - $0 >= 60_000 }) ?? true {
            try operatorStorage.touchManagementToken(token.id, at: time)
        }
        return token
    }

    /// What every management token starts with, so it is recognised in a leak scan.
    public static let managementTokenPrefix = "cumulus_mt_"

    /// SHA-256 in lowercase hex: how secrets the catalog must check are stored.
    static func digest(_ secret: String) -> String {
        SecureToken.hexString(Array(SHA256.hash(data: Array(secret.utf8))))
    }

    private func hashPasswordOnPool(_ password: String) throws -> String {
        let hasher = configuration.passwordHasher
        return try passwordPool.run(orThrow: Self.passwordPoolFull) { try hasher.hash(password: password) }
    }

    /// A valid hash of a password nobody knows, checked when an operator name is unknown.
    private static let decoyOperatorHash = (try? PasswordHasher().hash(password: SecureToken.hex(bytes: 16))) ?? ""
}
