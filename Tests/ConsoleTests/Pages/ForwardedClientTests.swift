import CloudStore
import Console
import HTTPServer
import TestSupport
import Testing

/// The console behind a trusted proxy: sign-in throttling counts the client the proxy names,
/// cookies are `Secure` when the proxy says the client used TLS, and the audit trail names the
/// client; the same headers from anyone else change nothing.
@Suite struct ForwardedClientTests {
    static let operatorName = "root"
    static let password = "operator password"

    private static func server(trusting proxies: String) throws -> ConsoleTestServer {
        let server = try ConsoleTestServer(trustedProxies: try TrustedProxies(parsing: proxies))
        try server.store.addOperator(operatorName, password: password)
        return server
    }

    /// Logs in as root with `password`, sending `headers`; the answer's status.
    private static func logIn(_ server: ConsoleTestServer, password: String, headers: [(String, String)]) throws -> Int {
        let form = try server.get("/console/login", headers: headers)
        let loginCookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let csrf = try #require(HTML.hiddenFields(in: form.text).first { $0.0 == "csrfToken" }?.1)
        return try server.post(
            "/console/login", form: [("csrfToken", csrf), ("name", operatorName), ("password", password)],
            headers: [("Cookie", loginCookie)] + headers
        ).status
    }

    @Test func cookiesAreSecureWhenATrustedProxySaysTheClientUsedTLS() throws {
        let trusted = try Self.server(trusting: "127.0.0.1/32")
        let overTLS = try trusted.get("/console/login", headers: [("X-Forwarded-Proto", "https")])
        let cookie = try #require(overTLS.header("Set-Cookie"))
        #expect(cookie.hasPrefix("__Host-cumulus_login_csrf=") && cookie.hasSuffix("; Secure"), "\(cookie)")
        let plain = try #require(try trusted.get("/console/login", headers: [("X-Forwarded-Proto", "http")]).header("Set-Cookie"))
        #expect(plain.hasPrefix("cumulus_login_csrf=") && !plain.contains("Secure"), "\(plain)")

        let untrusted = try Self.server(trusting: "10.0.0.0/8")
        let forged = try #require(try untrusted.get("/console/login", headers: [("X-Forwarded-Proto", "https")]).header("Set-Cookie"))
        #expect(forged.hasPrefix("cumulus_login_csrf=") && !forged.contains("Secure"), "\(forged)")
    }

    @Test func loginThrottlingCountsTheClientATrustedProxyNames() throws {
        let server = try Self.server(trusting: "127.0.0.1/32")
        var statuses: [Int] = []
        for _ in 0..<12 {
            statuses.append(try Self.logIn(server, password: "guess", headers: [("X-Forwarded-For", "203.0.113.7")]))
        }
        #expect(statuses.first == 401)
        #expect(statuses.last == 429, "\(statuses)")
        #expect(try Self.logIn(server, password: Self.password, headers: [("X-Forwarded-For", "203.0.113.7")]) == 429)
        // Another client behind the same proxy is not held back by the first one's guesses.
        #expect(try Self.logIn(server, password: Self.password, headers: [("X-Forwarded-For", "203.0.113.8")]) == 303)
    }

    @Test func aForgedForwardedForDoesNotEscapeLoginThrottling() throws {
        let server = try Self.server(trusting: "10.0.0.0/8")
        var statuses: [Int] = []
        for index in 0..<12 {
            statuses.append(try Self.logIn(server, password: "guess", headers: [("X-Forwarded-For", "203.0.113.\(index + 1)")]))
        }
        #expect(statuses.last == 429, "\(statuses)")
        #expect(try Self.logIn(server, password: Self.password, headers: [("X-Forwarded-For", "198.51.100.1")]) == 429)
    }

    /// The audit trail says where each action came from: the client a trusted proxy names, or the
    /// peer itself when it is not a trusted proxy, whatever `X-Forwarded-For` it forged; through
    /// the catalog (a container made) and through an environment's outbox (a zone made) alike.
    @Test func theAuditTrailNamesTheClientATrustedProxyNamesAndNoForgedOne() throws {
        let server = try Self.server(trusting: "127.0.0.1/32")
        let user = try server.store.addUser(server.container, name: "alice", password: "a long passphrase").userRecordName
        let auth = ("Authorization", "Bearer " + (try server.store.createManagementToken(for: Self.operatorName, name: "t").text))
        let proxied = try server.post(
            "/admin/v1/containers", body: #"{"identifier":"iCloud.com.example.Proxied"}"#,
            headers: [auth, ("X-Forwarded-For", "198.51.100.1, 203.0.113.9")], from: "127.0.0.1")
        #expect(proxied.status == 201)
        let forged = try server.post(
            "/admin/v1/containers/\(server.container.rawValue)/development/private/zones", body: #"{"zoneName":"Trips","user":"\#(user)"}"#,
            headers: [auth, ("X-Forwarded-For", "203.0.113.66")], from: "127.0.0.2")
        #expect(forged.status == 201)

        let trail = try AuditTrailView(json: try server.get("/admin/v1/audit?limit=10", headers: [auth]).json()).entries
        let container = try #require(trail.first { $0.action == "container.create" })
        #expect(container.clientAddress == "203.0.113.9")
        let zone = try #require(trail.first { $0.action.hasPrefix("zone.") })
        #expect(zone.clientAddress == "127.0.0.2")
        // The store's own reading agrees with the management answer.
        #expect(try server.store.auditEntries(AuditFilter(limit: 10)).compactMap(\.clientAddress).sorted() == ["127.0.0.2", "203.0.113.9"])
    }
}
