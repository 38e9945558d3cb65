/// The server-wide catalog: containers and settings.
protocol CatalogStorage: Sendable {
    /// The server's secret, created on first use, used to sign tokens and markers.
    func secret() throws -> [UInt8]
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

    func insertServerKey(_ key: ServerKey) throws
    func serverKey(_ keyID: String) throws -> ServerKey?
    func serverKeys(in container: ContainerIdentifier) throws -> [ServerKey]

    /// Adds a user. - Throws: ``CloudStoreError/exists(_:)`` when the name is taken in the container.
    func insertUser(_ user: AppUser, passwordHash: String) throws
    func user(_ userRecordName: String, in container: ContainerIdentifier) throws -> AppUser?
    /// The user called `name` (without regard to case) and the hash of their password.
    func user(named name: String, in container: ContainerIdentifier) throws -> (user: AppUser, passwordHash: String)?
    func users(in container: ContainerIdentifier) throws -> [AppUser]
    func setPasswordHash(_ hash: String, of userRecordName: String, in container: ContainerIdentifier) throws

    func insertSession(_ session: WebSession, created: Int64) throws
    /// The session with `id`, unless it was revoked.
    func session(_ id: String) throws -> WebSession?
    func revokeSession(_ id: String) throws

    func insertPushToken(_ token: PushToken) throws
    func pushToken(_ token: String) throws -> PushToken?
    func setPushTokenUser(_ token: String, userRecordName: String?) throws
}
