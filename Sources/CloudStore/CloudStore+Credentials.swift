import Crypto
import Foundation

extension CloudStore {
    // MARK: - API tokens

    /// Creates an API token for a container's environment.
    /// - Parameters:
    ///   - allowedOrigins: Origins browsers may call from and sign-in may hand web auth tokens to,
    ///     such as `https://app.example.com`. None (the default) allows only the sign-in callback
    ///     and this server's own pages; `["*"]` allows every origin, an explicit choice.
    ///   - signInCallback: Where sign-in returns the user with `?ckWebAuthToken=…`; `nil` to answer the
    ///     opener window by `postMessage`.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown container, ``CloudStoreError/badRequest(_:)``
    ///   for a malformed origin or callback.
    @discardableResult
    public func createAPIToken(
        _ container: ContainerIdentifier, _ environment: Environment, name: String = "API token", allowedOrigins: [String] = [],
        signInCallback: String? = nil, by actor: OperatorIdentity? = nil
    ) throws -> APIToken {
        try requireContainer(container)
        for origin in allowedOrigins where origin != "*" && !Self.isOrigin(origin) {
            throw CloudStoreError.badRequest(
                "Invalid allowed origin '\(origin)': use '*' or scheme://host[:port], such as https://app.example.com")
        }
        if let signInCallback, URL(string: signInCallback)?.scheme == nil {
            throw CloudStoreError.badRequest("Invalid sign-in callback '\(signInCallback)': use an absolute URL")
        }
        let token = APIToken(
            token: SecureToken.hex(bytes: 32), container: container, environment: environment, name: name,
            allowedOrigins: allowedOrigins, signInCallback: signInCallback, created: now)
        try auditedCatalogChange(
            actor, "token.create", container: container.rawValue, environment: environment.rawValue, target: Self.auditLabel(token)
        ) {
            try credentials.insertAPIToken(token)
        }
        return token
    }

    /// The API token with this value, or `nil` when there is none.
    public func apiToken(_ value: String) throws -> APIToken? {
        var value = value
        guard value.utf8.count == 64, value.withUTF8({ $0.allSatisfy(Self.isHexDigit) }) else { return nil }
        let counter = try credentials.changeCounter()
        if let cached = credentialCache.apiToken(value, at: counter) { return cached }
        guard let token = try credentials.apiToken(value.lowercased()) else { return nil }
        credentialCache.remember(token, at: counter)
        return token
    }

    /// The API tokens of a container.
    public func apiTokens(_ container: ContainerIdentifier) throws -> [APIToken] { try credentials.apiTokens(in: container) }

    /// Revokes an API token: every request carrying it is refused from now on, in every process
    /// serving this data directory.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such token.
    public func revokeAPIToken(_ value: String, by actor: OperatorIdentity? = nil) throws {
        let found = try actor.flatMap { _ in try credentials.apiToken(value.lowercased()) }
        let deleted = try auditedCatalogChange(
            found.flatMap { _ in actor }, "token.revoke", container: found?.container.rawValue, environment: found?.environment.rawValue,
            target: found.map(Self.auditLabel) ?? ""
        ) { try credentials.deleteAPIToken(value.lowercased()) }
        guard deleted else {
            throw CloudStoreError.notFound("No API token \(value)")
        }
    }

    /// An API token as the audit trail names it: its name and the start of its value, never all of it.
    private static func auditLabel(_ token: APIToken) -> String {
        "\(token.name) (\(token.token.prefix(8))…)"
    }

    // MARK: - Server-to-server keys

    /// Registers an EC P-256 public key (PEM) for server-to-server requests to a container's environment.
    /// - Returns: the key, whose `keyID` clients send as `X-Apple-CloudKit-Request-KeyID`.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` saying why the PEM is not an EC P-256 public
    ///   key: a private key, an RSA or Ed25519 key, another curve, a certificate, damaged text.
    @discardableResult
    public func addServerKey(
        _ container: ContainerIdentifier, _ environment: Environment, publicKeyPEM: String, name: String = "Server key",
        by actor: OperatorIdentity? = nil
    ) throws -> ServerKey {
        try requireContainer(container)
        let key: ServerPublicKey
        do {
            key = try ServerPublicKey(pemRepresentation: publicKeyPEM)
        } catch {
            throw CloudStoreError.badRequest(
                "\(error.description). Make one with: openssl ecparam -name prime256v1 -genkey -noout -out eckey.pem; "
                    + "openssl ec -in eckey.pem -pubout -out eckey.pub.pem; and register eckey.pub.pem")
        }
        let serverKey = ServerKey(
            keyID: SecureToken.hex(bytes: 32), container: container, environment: environment, publicKeyPEM: key.pemRepresentation,
            userRecordName: SecureToken.userRecordName(), name: name, created: now)
        try auditedCatalogChange(
            actor, "key.add", container: container.rawValue, environment: environment.rawValue,
            target: "\(serverKey.name) (\(serverKey.keyID))"
        ) { try credentials.insertServerKey(serverKey) }
        return serverKey
    }

    /// The server-to-server key with this ID, or `nil`.
    public func serverKey(_ keyID: String) throws -> ServerKey? {
        guard keyID.utf8.count == 64, keyID.utf8.allSatisfy(Self.isHexDigit) else { return nil }
        let counter = try credentials.changeCounter()
        if let cached = credentialCache.serverKey(keyID, at: counter) { return cached }
        guard let key = try credentials.serverKey(keyID.lowercased()) else { return nil }
        credentialCache.remember(key, at: counter)
        return key
    }

    /// The server-to-server keys of a container.
    public func serverKeys(_ container: ContainerIdentifier) throws -> [ServerKey] { try credentials.serverKeys(in: container) }

    /// Revokes a server-to-server key: requests it signs are refused from now on, in every
    /// process serving this data directory.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such key.
    public func revokeServerKey(_ keyID: String, by actor: OperatorIdentity? = nil) throws {
        let found = try actor.flatMap { _ in try credentials.serverKey(keyID.lowercased()) }
        let deleted = try auditedCatalogChange(
            found.flatMap { _ in actor }, "key.revoke", container: found?.container.rawValue, environment: found?.environment.rawValue,
            target: found.map { "\($0.name) (\($0.keyID))" } ?? ""
        ) { try credentials.deleteServerKey(keyID.lowercased()) }
        guard deleted else {
            throw CloudStoreError.notFound("No server-to-server key \(keyID)")
        }
    }

    // MARK: - Helpers

    func requireContainer(_ container: ContainerIdentifier) throws {
        guard try catalog.container(container) != nil else {
            throw CloudStoreError.notFound("Container \(container) does not exist")
        }
    }

    static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }

    /// `scheme://host[:port]` with nothing after.
    static func isOrigin(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme, let host = components.host,
            !host.isEmpty, components.path.isEmpty, components.query == nil, components.fragment == nil, components.user == nil
        else { return false }
        return scheme == "http" || scheme == "https"
    }
}
