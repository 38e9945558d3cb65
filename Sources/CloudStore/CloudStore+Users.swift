import Crypto
import Foundation

extension CloudStore {
    /// The most characters a user name may have.
    static let maximumUserNameLength = 128

    /// Adds a user to a container, who can then sign in with `name` and `password`.
    /// - Throws: ``CloudStoreError/exists(_:)`` when the name is taken, ``CloudStoreError/badRequest(_:)``
    ///   for an empty or unusable name or password.
    @discardableResult
    public func addUser(
        _ container: ContainerIdentifier, name: String, password: String, emailAddress: String? = nil, firstName: String? = nil,
        lastName: String? = nil
    ) throws -> AppUser {
        try requireContainer(container)
        let trimmed = name.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, trimmed.count <= Self.maximumUserNameLength,
            !trimmed.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else {
            throw CloudStoreError.badRequest("A user name must be 1 to \(Self.maximumUserNameLength) characters without control characters")
        }
        let user = AppUser(
            userRecordName: SecureToken.userRecordName(), container: container, name: trimmed, emailAddress: emailAddress,
            firstName: firstName ?? trimmed, lastName: lastName, created: now)
        try credentials.insertUser(user, passwordHash: try configuration.passwordHasher.hash(password: password))
        return user
    }

    /// The users of a container, by name.
    public func users(_ container: ContainerIdentifier) throws -> [AppUser] { try credentials.users(in: container) }

    /// The user with `userRecordName` in a container.
    public func user(_ userRecordName: String, in container: ContainerIdentifier) throws -> AppUser? {
        try credentials.user(userRecordName, in: container)
    }

    // MARK: - Signing in

    /// Checks a user's name and password and opens a session.
    /// - Parameter keepSignedIn: tokens of the session stay valid for ``CloudStoreConfiguration/keepSignedInLifetime``
    ///   instead of ``CloudStoreConfiguration/webAuthTokenLifetime``.
    /// - Returns: the user and a web auth token for the session.
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` for a wrong name or password (the message
    ///   does not say which).
    public func signIn(_ container: ContainerIdentifier, name: String, password: String, keepSignedIn: Bool = false) throws
        -> (user: AppUser, webAuthToken: String)
    {
        let hasher = configuration.passwordHasher
        guard let found = try credentials.user(named: name.trimmingCharacters(in: .whitespaces), in: container) else {
            // Hash anyway, so the time taken does not reveal whether the name exists.
            _ = hasher.verify(password: password, against: Self.decoyPasswordHash)
            throw CloudStoreError.authenticationFailed("Incorrect name or password")
        }
        guard hasher.verify(password: password, against: found.passwordHash) else {
            throw CloudStoreError.authenticationFailed("Incorrect name or password")
        }
        let lifetime = keepSignedIn ? configuration.keepSignedInLifetime : configuration.webAuthTokenLifetime
        let session = WebSession(
            id: WebAuthToken.hex(SecureToken.randomBytes(16)), container: container, userRecordName: found.user.userRecordName,
            tokenLifetime: lifetime)
        try credentials.insertSession(session, created: now)
        return (found.user, webAuthToken(for: session))
    }

    /// The session a web auth token proves, for a container.
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` when the token is forged, expired,
    ///   signed out, or for another container.
    public func session(forWebAuthToken text: String, in container: ContainerIdentifier) throws -> WebSession {
        guard let token = WebAuthToken.decode(text, with: webAuthTokenKey) else {
            throw CloudStoreError.authenticationFailed("The web auth token is not valid")
        }
        let counter = try credentials.changeCounter()
        var session = credentialCache.session(token.sessionID, at: counter)
        if session == nil, let stored = try credentials.session(token.sessionID) {
            credentialCache.remember(stored, at: counter)
            session = stored
        }
        guard let session, session.container == container else {
            throw CloudStoreError.authenticationFailed("The web auth token is not valid; sign in again")
        }
        guard now < token.issued + session.tokenLifetime else {
            throw CloudStoreError.authenticationFailed("The web auth token has expired; sign in again")
        }
        return session
    }

    /// A fresh web auth token for a session: what each authenticated response hands back, so
    /// that an active session never expires. Earlier tokens stay valid for their own lifetime.
    public func webAuthToken(for session: WebSession) -> String {
        WebAuthToken(sessionID: session.id, issued: now).encoded(with: webAuthTokenKey)
    }

    /// Ends the session of a web auth token: none of its tokens is accepted again.
    public func signOut(webAuthToken text: String, in container: ContainerIdentifier) throws {
        let session = try session(forWebAuthToken: text, in: container)
        try credentials.revokeSession(session.id)
    }

    /// A valid hash of a password nobody knows, checked when a name is unknown.
    private static let decoyPasswordHash = (try? PasswordHasher().hash(password: WebAuthToken.hex(SecureToken.randomBytes(16)))) ?? ""

    // MARK: - Push tokens

    /// Creates a push token for `tokens/create`.
    public func createPushToken(
        _ container: ContainerIdentifier, _ environment: Environment, apnsEnvironment: String, userRecordName: String?
    ) throws -> PushToken {
        try requireContainer(container)
        let token = PushToken(
            token: Base64URL.encode(SecureToken.randomBytes(32)), container: container, environment: environment,
            apnsEnvironment: apnsEnvironment, userRecordName: userRecordName, created: now)
        try credentials.insertPushToken(token)
        return token
    }

    /// Binds a push token to a user for `tokens/register`, creating it if this server has not seen
    /// it (a client may hold a token from before a reset).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a malformed token or one of another container.
    @discardableResult
    public func registerPushToken(
        _ value: String, _ container: ContainerIdentifier, _ environment: Environment, apnsEnvironment: String, userRecordName: String?
    ) throws -> PushToken {
        guard !value.isEmpty, value.utf8.count <= 256,
            value.unicodeScalars.allSatisfy({ $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || "+/=_-".unicodeScalars.contains($0)) })
        else {
            throw CloudStoreError.badRequest("apnsToken must be 1 to 256 characters of base64")
        }
        if let existing = try credentials.pushToken(value) {
            guard existing.container == container, existing.environment == environment else {
                throw CloudStoreError.badRequest("The apnsToken belongs to another container or environment")
            }
            try credentials.setPushTokenUser(value, userRecordName: userRecordName ?? existing.userRecordName)
            return PushToken(
                token: value, container: container, environment: environment, apnsEnvironment: apnsEnvironment,
                userRecordName: userRecordName ?? existing.userRecordName, created: existing.created)
        }
        try requireContainer(container)
        let token = PushToken(
            token: value, container: container, environment: environment, apnsEnvironment: apnsEnvironment,
            userRecordName: userRecordName, created: now)
        try credentials.insertPushToken(token)
        return token
    }

    /// The push token with this value, or `nil`.
    public func pushToken(_ value: String) throws -> PushToken? { try credentials.pushToken(value) }
}
