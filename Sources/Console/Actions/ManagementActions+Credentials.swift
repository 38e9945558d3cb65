import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - API tokens

    /// A container's API tokens, with their origins and sign-in callbacks.
    public func apiTokens(in container: ContainerIdentifier, as actor: OperatorIdentity) throws -> APITokensView {
        APITokensView(try store.apiTokens(try existingContainer(container)).map(APITokenView.init))
    }

    /// Creates an API token.
    /// - Parameters:
    ///   - allowedOrigins: origins that may call and receive web auth tokens; none allows only the
    ///     sign-in callback and this server's pages, `["*"]` every origin.
    ///   - signInCallback: where sign-in returns with the web auth token; `nil` for `postMessage`.
    public func createAPIToken(
        in container: ContainerIdentifier, environment: Environment, name: String?, allowedOrigins: [String], signInCallback: String?,
        as actor: OperatorIdentity
    ) throws -> APITokenView {
        let token = try store.createAPIToken(
            try existingContainer(container), environment, name: Self.label(name, default: "API token"),
            allowedOrigins: allowedOrigins, signInCallback: signInCallback, by: actor)
        return APITokenView(token)
    }

    /// Revokes an API token: the API refuses it from the next request on.
    /// - Parameter container: The container the token must belong to; any when `nil`.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such token (in the container).
    public func revokeAPIToken(_ token: String, in container: ContainerIdentifier?, as actor: OperatorIdentity) throws -> RevokedView {
        let identifier = try container.map { try existingContainer($0) }
        guard let found = try store.apiToken(token), identifier == nil || found.container == identifier else {
            throw CloudStoreError.notFound(
                container.map { "Container \($0) has no API token \(token)" } ?? "There is no API token \(token)")
        }
        try store.revokeAPIToken(found.token, by: actor)
        return RevokedView(found.token)
    }

    // MARK: - Server-to-server keys

    /// A container's server-to-server keys, with fingerprints (never their PEM: it identifies
    /// the key and nothing more, but lists stay short).
    public func serverKeys(in container: ContainerIdentifier, as actor: OperatorIdentity) throws -> ServerKeysView {
        ServerKeysView(try store.serverKeys(try existingContainer(container)).map(ServerKeyView.init))
    }

    /// Adds an EC P-256 public key.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` saying why the PEM is not such a key.
    public func addServerKey(
        in container: ContainerIdentifier, environment: Environment, publicKeyPEM: String, name: String?, as actor: OperatorIdentity
    ) throws -> ServerKeyView {
        let key = try store.addServerKey(
            try existingContainer(container), environment, publicKeyPEM: publicKeyPEM,
            name: Self.label(name, default: "Server key"), by: actor)
        return ServerKeyView(key)
    }

    /// Revokes a server-to-server key: its signatures are refused from the next request on.
    /// - Parameter container: The container the key must belong to; any when `nil`.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such key (in the container).
    public func revokeServerKey(_ keyID: String, in container: ContainerIdentifier?, as actor: OperatorIdentity) throws -> RevokedView {
        let identifier = try container.map { try existingContainer($0) }
        guard let found = try store.serverKey(keyID), identifier == nil || found.container == identifier else {
            throw CloudStoreError.notFound(
                container.map { "Container \($0) has no server-to-server key \(keyID)" } ?? "There is no server-to-server key \(keyID)")
        }
        try store.revokeServerKey(found.keyID, by: actor)
        return RevokedView(found.keyID)
    }

    /// A label given in a request, trimmed; the default when none was given.
    static func label(_ given: String?, default fallback: String) -> String {
        let trimmed = given?.trimmingCharacters(in: .whitespaces) ?? ""
        return trimmed.isEmpty ? fallback : trimmed
    }
}
