import HTTPServer

/// How the server names, scopes and reads its cookies. Behind an `https` public URL (or, without
/// a public URL, for a client a trusted proxy says used TLS) every
/// cookie is `Secure` and named with the `__Host-` prefix, which browsers accept only from a
/// secure origin with `Path=/` and no `Domain`: a sibling subdomain or a plain-http page can then
/// neither set nor overwrite one (security review 2, L6). Over plain http the names are plain
/// and each cookie keeps the narrower path it is sent to.
struct CookiePolicy: Sendable, Equatable {
    /// The prefix of every cookie name behind https.
    static let hostPrefix = "__Host-"

    /// Whether cookies are `Secure` (and `__Host-` prefixed).
    let secure: Bool
    /// Whether no public URL is set, so that each request's client decides (``policy(for:)``).
    private let followsClient: Bool

    /// The policy for a server reached at `publicURL`; without one, pages are served over plain
    /// http to whatever `Host` the client names, unless a trusted proxy says the client used TLS.
    init(publicURL: String?) {
        let publicURL = publicURL.flatMap { $0.isEmpty ? nil : $0 }
        secure = publicURL?.lowercased().hasPrefix("https://") ?? false
        followsClient = publicURL == nil
    }

    private init(secure: Bool) {
        self.secure = secure
        followsClient = false
    }

    /// The policy for one request: a public URL decides for every request; without one, a
    /// client that reached a trusted proxy over TLS (`X-Forwarded-Proto: https`) gets `Secure`,
    /// `__Host-` cookies, as its links are https too (`HTTPRequest.baseURL`).
    func policy(for request: HTTPRequest) -> CookiePolicy {
        followsClient && request.client.usedTLS ? CookiePolicy(secure: true) : self
    }

    /// The name a cookie called `base` goes by.
    func name(_ base: String) -> String { secure ? Self.hostPrefix + base : base }

    /// A `Set-Cookie` value: `HttpOnly` and `SameSite=Strict` always; behind https also `Secure`,
    /// with the `__Host-` name and `Path=/` (so `path` applies over plain http only).
    /// - Parameters:
    ///   - base: The cookie's name without prefix.
    ///   - value: Its value, already safe in a cookie.
    ///   - path: The path it is sent to over plain http.
    ///   - maxAge: Its lifetime in seconds (0 removes it); `nil` for a session cookie.
    func setCookie(_ base: String, _ value: String, path: String = "/", maxAge: Int? = nil) -> String {
        "\(name(base))=\(value); Path=\(secure ? "/" : path)" + (maxAge.map { "; Max-Age=\($0)" } ?? "")
            + "; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The value of the cookie `base` a request carries under this policy's name: behind https a
    /// cookie without the prefix, which any sibling site could have set, is not read.
    func value(of base: String, in request: HTTPRequest) -> String? {
        Cookies.value(named: name(base), in: request)
    }
}

extension ConsoleConfiguration {
    /// How cookies are set and read: `Secure` and `__Host-` prefixed when ``publicURL`` is https.
    var cookies: CookiePolicy { CookiePolicy(publicURL: publicURL) }

    /// How cookies are set and read for `request` (see ``CookiePolicy/policy(for:)``).
    func cookies(for request: HTTPRequest) -> CookiePolicy { cookies.policy(for: request) }
}
