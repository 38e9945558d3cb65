import CloudKitWire
import CloudStore
import Crypto
import Foundation
import HTTPServer
import Synchronization

/// Decides who a request is from: a server-to-server signature (administrator of the public
/// database), or an API token alone (the world) or with a web auth token (a signed-in user).
final class RequestAuthenticator: Sendable {
    private let store: CloudStore
    private let verifier: ServerToServerSignatureVerifier
    /// Parsed public keys by key ID, so a PEM is read once rather than on every request.
    private let publicKeys = Mutex<[String: ServerPublicKey]>([:])

    init(store: CloudStore, clockSkew: Duration) {
        self.store = store
        self.verifier = ServerToServerSignatureVerifier(clockSkew: clockSkew)
    }

    /// The request's authentication for `container` and `environment`.
    /// - Throws: ``WebServicesError`` or ``ServerToServerAuthError`` when credentials are missing or rejected.
    func authenticate(_ request: HTTPRequest, container: ContainerIdentifier, environment: Environment) throws -> Authentication {
        let apiTokenValue = request.queryParameter("ckAPIToken")
        if Self.mayBeSigned(request),
            let parts = try SignedRequestParts.extract(header: { request.headers[$0] }, body: request.body, requestTarget: request.target)
        {
            guard apiTokenValue == nil else {
                throw WebServicesError.badRequest("Use either ckAPIToken or a server-to-server signature, not both")
            }
            return try serverToServer(parts, container: container, environment: environment)
        }
        guard let apiTokenValue, !apiTokenValue.isEmpty else {
            throw WebServicesError.badRequest(
                "The request needs an API token (the ckAPIToken query parameter) or a server-to-server signature")
        }
        guard let apiToken = try store.apiToken(apiTokenValue) else {
            throw WebServicesError.authenticationFailed("Unknown API token")
        }
        guard apiToken.container == container, apiToken.environment == environment else {
            throw WebServicesError.authenticationFailed(
                "The API token is for \(apiToken.container) \(apiToken.environment), not \(container) \(environment)")
        }
        guard var webAuthToken = Self.webAuthToken(of: request), !webAuthToken.isEmpty else {
            return Authentication(caller: .world, apiToken: apiToken)
        }
        // Tokens hold no spaces: one here is a `+` a client forgot to percent-encode.
        let session = try store.session(
            forWebAuthToken: webAuthToken.withUTF8 { $0.contains(UInt8(ascii: " ")) }
                ? webAuthToken.replacingOccurrences(of: " ", with: "+") : webAuthToken,
            in: container, environment)
        return Authentication(
            caller: .user(session.userRecordName, deviceID: "web"), apiToken: apiToken, session: session)
    }

    /// Whether a request has any field named like a server-to-server signature's: most have
    /// none, which one pass over the names tells, before three lookups by name.
    static func mayBeSigned(_ request: HTTPRequest) -> Bool {
        request.headers.contains { field in
            field.name.utf8.count > signatureFieldPrefix.utf8.count
                && HTTPHeaders.namesEqual(field.name.prefix(signatureFieldPrefix.count), signatureFieldPrefix)
        }
    }

    /// What the names of the signature's fields (``ServerToServerHeader``) begin with.
    static let signatureFieldPrefix = "X-Apple-CloudKit-Request-"

    /// The web auth token a request carries: `ckWebAuthToken`, or `ckSession` as the older
    /// CloudKit JS 1.2.0 build names it, in the query or in the matching header.
    /// CloudKit JS 1.2.0 sends `ckSession=null` when no one is signed in: no token, as CloudKit
    /// reads it, so that an app of the world reads the public database.
    static func webAuthToken(of request: HTTPRequest) -> String? {
        func given(_ value: String?) -> String? { value == "null" ? nil : value }
        return given(request.queryParameter("ckWebAuthToken", orElse: "ckSession"))
            ?? given(request.headers.value("X-Apple-CloudKit-Web-Auth-Token", orElse: "X-Apple-CloudKit-Session"))
    }

    private func serverToServer(_ parts: SignedRequestParts, container: ContainerIdentifier, environment: Environment) throws
        -> Authentication
    {
        guard let key = try store.serverKey(parts.keyID) else {
            throw ServerToServerAuthError.unknownKeyID(parts.keyID)
        }
        guard key.container == container, key.environment == environment else {
            throw WebServicesError.authenticationFailed(
                "The key \(key.keyID) is for \(key.container) \(key.environment), not \(container) \(environment)")
        }
        let publicKey = try publicKey(for: key)
        try verifier.verify(request: parts, publicKey: publicKey, now: Date())
        return Authentication(caller: .server(key.userRecordName), serverKey: key)
    }

    private func publicKey(for key: ServerKey) throws -> ServerPublicKey {
        if let cached = publicKeys.withLock({ $0[key.keyID] }) { return cached }
        let parsed: ServerPublicKey
        do {
            parsed = try ServerPublicKey(pemRepresentation: key.publicKeyPEM)
        } catch {
            throw ServerToServerAuthError.unsupportedKey(error.reason)
        }
        publicKeys.withLock { $0[key.keyID] = parsed }
        return parsed
    }
}
