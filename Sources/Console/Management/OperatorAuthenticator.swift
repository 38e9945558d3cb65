import CloudStore
import HTTPServer

/// Finds the operator behind a console or management request: a management token
/// (`Authorization: Bearer cumulus_mt_…`) or a console session cookie. A session must also
/// show its CSRF token on every request that changes something, so another site cannot make a
/// signed-in browser act; a token need not, as browsers never send one by themselves.
struct OperatorAuthenticator: Sendable {
    /// The cookie holding a console session's secret (its name without ``CookiePolicy``'s prefix).
    static let sessionCookie = "cumulus_console"
    /// The header a session's requests send their CSRF token in.
    static let csrfHeader = "X-CSRF-Token"

    let store: CloudStore
    /// Who every request is, without a credential: the local command line, which holds the
    /// data directory and so everything already. `nil` on a server.
    var fixedIdentity: OperatorIdentity? = nil
    /// How the session cookie is named: behind https only the `__Host-` prefixed one is read.
    var cookies = CookiePolicy(publicURL: nil)

    /// The operator a request proves.
    /// - Parameters:
    ///   - formToken: The CSRF token a console form posted; the header is read when `nil`.
    ///   - countingUse: Whether a console session's check counts as activity.
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` for a missing, invalid, revoked or
    ///   expired credential; ``CloudStoreError/accessDenied(_:)`` for a state-changing session
    ///   request without its CSRF token.
    func authenticate(_ request: HTTPRequest, formToken: String? = nil, countingUse: Bool = true) throws -> OperatorRequest {
        if let fixedIdentity {
            return OperatorRequest(identity: fixedIdentity, csrfToken: nil, access: try store.operatorAccess(of: fixedIdentity))
        }
        if let authorization = request.headers["Authorization"] {
            guard authorization.hasPrefix("Bearer ") else {
                throw CloudStoreError.authenticationFailed("Send a management token as Authorization: Bearer cumulus_mt_…")
            }
            let token = try store.managementToken(text: String(authorization.dropFirst("Bearer ".count)))
            let identity = OperatorIdentity.token(operatorName: token.operatorName, tokenID: token.id, client: request.client.host)
            return OperatorRequest(identity: identity, csrfToken: nil, access: try store.operatorAccess(of: identity))
        }
        guard let secret = cookies.policy(for: request).value(of: Self.sessionCookie, in: request) else {
            throw CloudStoreError.authenticationFailed(
                "Sign in to the console, or send a management token as Authorization: Bearer cumulus_mt_…")
        }
        let session: OperatorSession
        do {
            session = try store.operatorSession(secret: secret, countingUse: countingUse)
        } catch CloudStoreError.authenticationRequired(let reason) {
            throw CloudStoreError.authenticationFailed(reason)
        }
        if Self.changesState(request.method) {
            // Browsers that send fetch metadata say where a request came from: only this site may change things.
            if let site = request.headers["Sec-Fetch-Site"], site != "same-origin", site != "none" {
                throw CloudStoreError.accessDenied("This request came from another site and has been refused")
            }
            let sent = formToken ?? request.headers[Self.csrfHeader] ?? ""
            guard SecureToken.constantTimeEquals(sent, session.csrfToken) else {
                throw CloudStoreError.accessDenied("The form's security token is missing or out of date; reload the page and try again")
            }
        }
        let identity = OperatorIdentity.session(operatorName: session.operatorName, sessionID: session.id, client: request.client.host)
        return OperatorRequest(identity: identity, csrfToken: session.csrfToken, access: try store.operatorAccess(of: identity))
    }

    /// Whether the credential `request` was authenticated with still holds, and its operator may
    /// still read the request log there: what a live tail checks again, so it ends when its token
    /// is revoked, its session ends, its operator is removed or loses the right. The check does
    /// not count as the session's activity.
    func stillAuthenticates(_ request: HTTPRequest) -> Bool {
        guard let still = try? authenticate(request, countingUse: false), let target = try? OperatorTarget(request) else { return false }
        return still.access.allows(.reads(.logs), on: target)
    }

    /// Whether a request of this method may change something (everything but GET and HEAD).
    static func changesState(_ method: HTTPMethod) -> Bool {
        method != .get && method != .head
    }
}

/// An authenticated operator request: who, the CSRF token pages put in their forms, and what
/// the operator may do, read once with the credential.
struct OperatorRequest: Sendable {
    /// Who is acting.
    var identity: OperatorIdentity
    /// The session's CSRF token; `nil` for a management token.
    var csrfToken: String?
    /// The operator's role and containers, as the store keeps them.
    var access: OperatorAccess
}

extension OperatorTarget {
    /// What a console or management request acts on, from its path's `:container`,
    /// `:environment` and `:database`.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a malformed container identifier.
    init(_ request: HTTPRequest) throws {
        let parameters = request.pathParameters
        self.init(
            container: try parameters["container"].map { try ContainerIdentifier($0) },
            environment: parameters["environment"].flatMap(Environment.init(rawValue:)),
            database: parameters["database"].flatMap(DatabaseScope.init(rawValue:)))
    }
}
