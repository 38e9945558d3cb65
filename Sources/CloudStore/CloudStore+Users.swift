import Crypto
import Foundation

extension CloudStore {
    /// The most characters a user name may have.
    static let maximumUserNameLength = 128

    /// Adds a user to a container, who can then sign in with `name` and `password`.
    /// - Throws: ``CloudStoreError/exists(_:)`` when the name is taken, ``CloudStoreError/badRequest(_:)``
    ///   for an empty or unusable name, or a password shorter than
    ///   ``CloudStoreConfiguration/minimumPasswordLength``.
    @discardableResult
    public func addUser(
        _ container: ContainerIdentifier, name: String, password: String, emailAddress: String? = nil, firstName: String? = nil,
        lastName: String? = nil, isDiscoverable: Bool = false, by actor: OperatorIdentity? = nil
    ) throws -> AppUser {
        try requireContainer(container)
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= Self.maximumUserNameLength,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CloudStoreError.badRequest("A user name must be 1 to \(Self.maximumUserNameLength) characters without control characters")
        }
        try Self.checkPassword(password)
        let user = AppUser(
            userRecordName: SecureToken.userRecordName(), container: container, name: trimmed, emailAddress: emailAddress,
            firstName: firstName ?? trimmed, lastName: lastName, created: now, isDiscoverable: isDiscoverable)
        let hash = try hashPassword(password)
        try auditedCatalogChange(actor, "user.add", container: container.rawValue, target: user.auditLabel) {
            try credentials.insertUser(user, passwordHash: hash)
        }
        return user
    }

    /// The users of a container, by name.
    public func users(_ container: ContainerIdentifier) throws -> [AppUser] { try credentials.users(in: container) }

    /// The user with `userRecordName` in a container.
    public func user(_ userRecordName: String, in container: ContainerIdentifier) throws -> AppUser? {
        try credentials.user(userRecordName, in: container)
    }

    /// The user who signs in as `name` (compared without case) in a container.
    public func user(named name: String, in container: ContainerIdentifier) throws -> AppUser? {
        try credentials.user(named: name.trimmingCharacters(in: .whitespaces), in: container)?.user
    }

    /// Sets a user's password and signs them out everywhere: every session of theirs ends at once.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown user, ``CloudStoreError/badRequest(_:)``
    ///   for a password that is too short.
    public func setPassword(
        _ password: String, of userRecordName: String, in container: ContainerIdentifier, by actor: OperatorIdentity? = nil
    )
        throws
    {
        try Self.checkPassword(password)
        guard let found = try user(userRecordName, in: container) else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
        let hash = try hashPassword(password)
        try auditedCatalogChange(actor, "user.password", container: container.rawValue, target: found.auditLabel) {
            try credentials.setPasswordHash(hash, of: userRecordName, in: container)
        }
    }

    /// Removes a user: they can no longer sign in, their sessions end at once, and push tokens
    /// they held are let go. Records they created stay, stamped with their user record name.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown user.
    public func removeUser(_ userRecordName: String, from container: ContainerIdentifier, by actor: OperatorIdentity? = nil) throws {
        let found = try actor.flatMap { _ in try user(userRecordName, in: container) }
        let deleted = try auditedCatalogChange(
            found.flatMap { _ in actor }, "user.remove", container: container.rawValue, target: found?.auditLabel ?? ""
        ) {
            try credentials.deleteUser(userRecordName, in: container)
        }
        guard deleted else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
        for environment in Environment.allCases {
            try setRoles([], ofRemovedUser: userRecordName, in: container, environment)
        }
    }

    /// Ends every session of a user at once, in every process serving this data directory.
    /// - Returns: how many sessions were open.
    @discardableResult
    public func signOutEverywhere(_ userRecordName: String, in container: ContainerIdentifier, by actor: OperatorIdentity? = nil) throws
        -> Int
    {
        guard let found = try user(userRecordName, in: container) else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
        return try auditedCatalogChange(actor, "user.sign-out", container: container.rawValue, target: found.auditLabel) {
            try credentials.revokeSessions(of: userRecordName, in: container)
        }
    }

    /// How many sessions of a user are open.
    public func openSessionCount(of userRecordName: String, in container: ContainerIdentifier) throws -> Int {
        try credentials.openSessionCount(of: userRecordName, in: container, now: now)
    }

    static func checkPassword(_ password: String) throws {
        guard password.count >= CloudStoreConfiguration.minimumPasswordLength else {
            throw CloudStoreError.badRequest("A password needs at least \(CloudStoreConfiguration.minimumPasswordLength) characters")
        }
    }

    /// Hashes on the password threads, so that hashing never takes a request thread's time
    /// beyond waiting; refused when too many are waiting.
    private func hashPassword(_ password: String) throws -> String {
        let hasher = configuration.passwordHasher
        return try passwordPool.run(orThrow: Self.passwordPoolFull) { try hasher.hash(password: password) }
    }

    static let passwordPoolFull = CloudStoreError.tryAgainLater("Too many password checks are waiting; try again in a moment")

    // MARK: - Signing in

    /// Checks a user's name and password and opens a session, waiting for a password thread.
    /// - Parameters:
    ///   - environment: the environment the session is for (its API token's): it works there only.
    ///   - keepSignedIn: the session lives ``CloudStoreConfiguration/keepSignedInLifetime`` without
    ///     use instead of ``CloudStoreConfiguration/webAuthTokenLifetime``.
    ///   - clientAddress: where the attempt comes from, for throttling guesses per address.
    /// - Returns: the user and a web auth token for the session.
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` for a wrong name or password (the
    ///   message does not say which), ``CloudStoreError/throttled(_:retryAfter:)`` after too many
    ///   failures, ``CloudStoreError/tryAgainLater(_:)`` when too many checks are waiting.
    public func signIn(
        _ container: ContainerIdentifier, _ environment: Environment, name: String, password: String, keepSignedIn: Bool = false,
        clientAddress: String? = nil
    ) throws -> (user: AppUser, webAuthToken: String) {
        try signInThrottle.check(account: Self.signInAccount(container, name), address: clientAddress, now: now)
        return try passwordPool.run(orThrow: Self.passwordPoolFull) { [self] in
            try verifyAndOpenSession(
                container, environment, name: name, password: password, keepSignedIn: keepSignedIn, clientAddress: clientAddress)
        }
    }

    /// ``signIn(_:_:name:password:keepSignedIn:clientAddress:)`` without waiting: `completion`
    /// runs on a password thread (or at once when refused), so a request thread is free meanwhile.
    public func signIn(
        _ container: ContainerIdentifier, _ environment: Environment, name: String, password: String, keepSignedIn: Bool = false,
        clientAddress: String? = nil, completion: @escaping @Sendable (Result<(user: AppUser, webAuthToken: String), any Error>) -> Void
    ) {
        do {
            try signInThrottle.check(account: Self.signInAccount(container, name), address: clientAddress, now: now)
        } catch {
            completion(.failure(error))
            return
        }
        let submitted = passwordPool.submit { [self] in
            completion(
                Result {
                    try verifyAndOpenSession(
                        container, environment, name: name, password: password, keepSignedIn: keepSignedIn, clientAddress: clientAddress)
                })
        }
        if !submitted { completion(.failure(Self.passwordPoolFull)) }
    }

    private static func signInAccount(_ container: ContainerIdentifier, _ name: String) -> SignInAccount {
        .user(container: container, name: name.trimmingCharacters(in: .whitespaces).lowercased())
    }

    private func verifyAndOpenSession(
        _ container: ContainerIdentifier, _ environment: Environment, name: String, password: String, keepSignedIn: Bool,
        clientAddress: String?
    ) throws -> (user: AppUser, webAuthToken: String) {
        let hasher = configuration.passwordHasher
        let account = Self.signInAccount(container, name)
        guard let found = try credentials.user(named: name.trimmingCharacters(in: .whitespaces), in: container) else {
            // Hash anyway, so the time taken does not reveal whether the name exists.
            _ = hasher.verify(password: password, against: Self.decoyPasswordHash)
            signInThrottle.recordFailure(account: account, address: clientAddress, now: now)
            throw CloudStoreError.authenticationFailed("Incorrect name or password")
        }
        guard hasher.verify(password: password, against: found.passwordHash) else {
            signInThrottle.recordFailure(account: account, address: clientAddress, now: now)
            throw CloudStoreError.authenticationFailed("Incorrect name or password")
        }
        signInThrottle.recordSuccess(account: account, address: clientAddress)
        let started = now
        let session = WebSession(
            id: SecureToken.hex(bytes: 16), container: container, environment: environment, userRecordName: found.user.userRecordName,
            idleLifetime: keepSignedIn ? configuration.keepSignedInLifetime : configuration.webAuthTokenLifetime,
            created: started, expires: started + configuration.sessionMaximumAge)
        try credentials.insertSession(session)
        // A new token of its own, never one handed out before.
        return (found.user, WebAuthToken(sessionID: session.id, issued: now).encoded(with: webAuthTokenKey))
    }

    /// The session a web auth token proves, for a container's environment; the use counts as
    /// activity.
    /// - Throws: ``CloudStoreError/authenticationRequired(_:)`` when the token is malformed or
    ///   forged, its session was signed out, ended by a reset of its environment, has gone unused
    ///   too long or reached its maximum age, or it is for another container or environment: the
    ///   client must sign in again.
    public func session(forWebAuthToken text: String, in container: ContainerIdentifier, _ environment: Environment) throws -> WebSession {
        guard let token = webAuthTokens.open(text) else {
            throw CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")
        }
        let (session, stored) = try storedSession(token.sessionID)
        guard session.container == container else {
            throw CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")
        }
        if let opened = session.environment, opened != environment {
            throw CloudStoreError.authenticationRequired(
                "The web auth token was issued for \(opened), not \(environment); sign in with an API token of \(environment)")
        }
        let time = now
        try checkOpen(session, stored: stored, issued: token.issued, at: time)
        if sessionActivity.touch(session.id, at: time, stored: stored) {
            try credentials.touchSession(session.id, at: time)
        }
        return session
    }

    /// The stored session with `id` and when it was last seen active, read through the
    /// credential cache.
    /// - Throws: ``CloudStoreError/authenticationRequired(_:)`` when it was signed out or ended.
    func storedSession(_ id: String) throws -> (session: WebSession, lastSeen: Int64) {
        let counter = try credentials.changeCounter()
        var found = credentialCache.session(id, at: counter)
        if found == nil, let stored = try credentials.session(id) {
            found = stored
            credentialCache.remember(stored, at: counter)
        }
        guard let found else {
            if try credentials.sessionWasEndedByReset(id) {
                throw CloudStoreError.authenticationRequired("The session ended when its environment was reset; sign in again")
            }
            throw CloudStoreError.authenticationRequired("The web auth token is not valid; sign in again")
        }
        return found
    }

    /// Refuses a session past its maximum age, or unused for its idle lifetime since the later
    /// of `issued` (its token's time) and when it was last seen active.
    func checkOpen(_ session: WebSession, stored: Int64, issued: Int64, at time: Int64) throws {
        guard time < session.expires else {
            throw CloudStoreError.authenticationRequired("The session has reached its maximum age; sign in again")
        }
        let lastActive = max(issued, sessionActivity.lastSeen(session.id, stored: stored))
        guard time < lastActive + session.idleLifetime else {
            throw CloudStoreError.authenticationRequired("The web auth token has expired; sign in again")
        }
    }

    /// A web auth token for a session issued within the last second: what each authenticated
    /// response hands back (the same one to every answer of that second).
    public func webAuthToken(for session: WebSession) -> String {
        webAuthTokens.token(for: session.id, now: now)
    }

    /// Ends the session of a web auth token: none of its tokens is accepted again.
    public func signOut(webAuthToken text: String, in container: ContainerIdentifier, _ environment: Environment) throws {
        let session = try session(forWebAuthToken: text, in: container, environment)
        try credentials.revokeSession(session.id)
        sessionActivity.forget(session.id)
    }

    /// A valid hash of a password nobody knows, checked when a name is unknown.
    private static let decoyPasswordHash = (try? PasswordHasher().hash(password: SecureToken.hex(bytes: 16))) ?? ""
}
