import CloudStore
import Console
import Foundation
import TestSupport
import Testing

/// The server's cookies: behind an https public URL every one is `Secure` and `__Host-`
/// prefixed (so `Path=/`, no `Domain`), and only the prefixed name is read, so a sibling
/// subdomain cannot toss one in (security review 2, L6). The notice cookie is sealed by the
/// store, so an unsigned or altered one shows nothing (security review N14).
@Suite struct CookieHardeningTests {
    static let operatorName = "root"
    static let password = "operator password"
    static let origin = "https://app.example.com"

    /// A console server, over plain http or behind an https public URL, with an operator.
    final class Console {
        let server: ConsoleTestServer
        let https: Bool

        init(https: Bool) throws {
            server = try ConsoleTestServer(publicURL: https ? "https://cloud.example.com" : nil)
            self.https = https
            try server.store.addOperator(CookieHardeningTests.operatorName, password: CookieHardeningTests.password)
        }

        /// A cookie's name as this server sets it.
        func name(_ base: String) -> String { (https ? "__Host-" : "") + base }

        /// Checks a `Set-Cookie` value and returns its `name=value` pair.
        @discardableResult
        func expectCookie(_ setCookie: String?, _ base: String, httpPath: String, sourceLocation: SourceLocation = #_sourceLocation)
            -> String
        {
            guard let setCookie else {
                Issue.record("no \(base) cookie", sourceLocation: sourceLocation)
                return ""
            }
            let attributes = setCookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            #expect(attributes.first?.hasPrefix(name(base) + "=") == true, "\(setCookie)", sourceLocation: sourceLocation)
            #expect(attributes.contains("Path=\(https ? "/" : httpPath)"), "\(setCookie)", sourceLocation: sourceLocation)
            #expect(
                attributes.contains("HttpOnly") && attributes.contains("SameSite=Strict"), "\(setCookie)", sourceLocation: sourceLocation)
            #expect(attributes.contains("Secure") == https, "\(setCookie)", sourceLocation: sourceLocation)
            #expect(!attributes.contains { $0.lowercased().hasPrefix("domain") }, "\(setCookie)", sourceLocation: sourceLocation)
            return attributes.first ?? ""
        }

        /// Logs in through the form; the `Cookie` pair of the session.
        func logIn() throws -> String {
            let form = try server.get("/console/login")
            let csrfCookie = expectCookie(form.header("Set-Cookie"), "cumulus_login_csrf", httpPath: "/console")
            let csrf = try #require(HTML.hiddenFields(in: form.text).first { $0.0 == "csrfToken" }?.1)
            let login = try server.post(
                "/console/login",
                form: [("csrfToken", csrf), ("name", CookieHardeningTests.operatorName), ("password", CookieHardeningTests.password)],
                headers: [("Cookie", csrfCookie), ("Sec-Fetch-Site", "same-origin")])
            #expect(login.status == 303)
            return expectCookie(login.header("Set-Cookie"), "cumulus_console", httpPath: "/")
        }
    }

    @Test(arguments: [false, true])
    func everyCookieIsSecureWithTheHostPrefixExactlyBehindHTTPS(https: Bool) throws {
        let console = try Console(https: https)
        let server = console.server

        // The app sign-in page's form token.
        let token = try server.store.createAPIToken(server.container, .development, allowedOrigins: [Self.origin])
        let signIn = try server.get("/signin?ckAPIToken=\(token.token)&origin=" + FormEncoding.component(Self.origin))
        #expect(signIn.status == 200)
        console.expectCookie(signIn.header("Set-Cookie"), "cumulus_signin_csrf", httpPath: "/signin")

        // The console's login form token and session.
        let session = try console.logIn()
        let containers = try server.get("/console/containers", headers: [("Cookie", session)])
        #expect(containers.status == 200)
        // The script that keeps the browser's time zone names its cookie the same way.
        #expect(containers.text.contains("data-name=\"\(console.name("cumulus_tz"))\""))
        #expect(containers.text.contains(https ? "; path=/; samesite=strict; secure\"" : "; path=/console; samesite=strict\""))
        let formToken = try #require(HTML.hiddenFields(in: containers.text).first { $0.0 == "csrfToken" }?.1)

        // A change leaves a notice for the next page, which shows it and removes it.
        let created = try server.post(
            "/console/containers", form: [("identifier", "iCloud.com.example.Other"), ("csrfToken", formToken)],
            headers: [("Cookie", session), ("Sec-Fetch-Site", "same-origin")])
        #expect(created.status == 303)
        let notice = console.expectCookie(created.header("Set-Cookie"), "cumulus_notice", httpPath: "/console")
        let next = try server.get(try #require(created.header("Location")), headers: [("Cookie", "\(session); \(notice)")])
        #expect(next.text.contains("Container iCloud.com.example.Other created."))
        console.expectCookie(next.header("Set-Cookie"), "cumulus_notice", httpPath: "/console")
        #expect(next.header("Set-Cookie")?.contains("Max-Age=0") == true)

        // Logging out removes the session cookie by the same name and path.
        let logout = try server.post(
            "/console/logout", form: [("csrfToken", formToken)], headers: [("Cookie", session), ("Sec-Fetch-Site", "same-origin")])
        #expect(logout.status == 303)
        console.expectCookie(logout.header("Set-Cookie"), "cumulus_console", httpPath: "/")
        #expect(logout.header("Set-Cookie")?.contains("Max-Age=0") == true)
    }

    /// Cookie tossing: a sibling subdomain (or a plain-http page of the same host) sets a cookie
    /// without the prefix. Behind https it is not read: a login form token it chose does not
    /// sign the browser in (login CSRF), and a session secret it planted is no session.
    @Test func behindHTTPSACookieWithoutThePrefixIsNotRead() throws {
        let console = try Console(https: true)
        let server = console.server
        let chosen = String(repeating: "ab", count: 32)
        let tossed = try server.post(
            "/console/login", form: [("csrfToken", chosen), ("name", Self.operatorName), ("password", Self.password)],
            headers: [("Cookie", "cumulus_login_csrf=\(chosen)"), ("Sec-Fetch-Site", "same-origin")])
        #expect(tossed.status == 403)
        #expect(tossed.header("Set-Cookie") == nil)
        let prefixed = try server.post(
            "/console/login", form: [("csrfToken", chosen), ("name", Self.operatorName), ("password", Self.password)],
            headers: [("Cookie", "__Host-cumulus_login_csrf=\(chosen)"), ("Sec-Fetch-Site", "same-origin")])
        #expect(prefixed.status == 303, "the prefixed name, which only this host can set, is read")

        let token = try server.store.createAPIToken(server.container, .development, allowedOrigins: [Self.origin])
        _ = try server.store.addUser(server.container, name: "alice", password: "a long passphrase")
        let signIn = try server.post(
            form: [
                ("ckAPIToken", token.token), ("origin", Self.origin), ("csrfToken", chosen), ("name", "alice"),
                ("password", "a long passphrase"),
            ], headers: [("Cookie", "cumulus_signin_csrf=\(chosen)"), ("Sec-Fetch-Site", "same-origin")])
        #expect(signIn.status == 403)

        let secret = try server.store.signInOperator(Self.operatorName, password: Self.password, clientAddress: nil).secret
        #expect(try server.get("/console/containers", headers: [("Cookie", "cumulus_console=\(secret)")]).status == 303)
        #expect(try server.get("/console/containers", headers: [("Cookie", "__Host-cumulus_console=\(secret)")]).status == 200)
    }

    /// The review's notice: a sibling site tosses `cumulus_notice=success.<text>` and the next
    /// console page showed the text. Unsigned, altered or sealed-elsewhere notices now show nothing.
    @Test(arguments: [false, true])
    func anUnsignedOrAlteredNoticeIsIgnored(https: Bool) throws {
        let console = try Console(https: https)
        let server = console.server
        let session = try console.logIn()
        let notice = console.name("cumulus_notice")
        let page = "/console/containers"
        for forged in ["success.Hello%20from%20a%20sibling%20site", "failure.Hello%20from%20a%20sibling%20site", "success.Hello"] {
            let shown = try server.get(page, headers: [("Cookie", "\(session); \(notice)=\(forged)")])
            #expect(shown.status == 200)
            #expect(!shown.text.contains("Hello"), "\(forged)")
            #expect(!shown.text.contains("class=\"notice"))
        }
        // Sealed by another server (another secret), it shows nothing either; a genuine one
        // shows, and the same one altered does not.
        let other = try TemporaryStore(createContainer: false)
        let genuine = server.store.sealConsoleNotice("success.Hello from this server")
        var altered = Array(genuine.utf8)
        altered[altered.count / 2] = altered[altered.count / 2] == UInt8(ascii: "x") ? UInt8(ascii: "y") : UInt8(ascii: "x")
        for (sealed, shows) in [
            (other.store.sealConsoleNotice("success.Hello from elsewhere"), false), (genuine, true),
            (String(decoding: altered, as: UTF8.self), false),
        ] {
            let cookie = session + "; " + notice + "=" + sealed
            let text = try server.get(page, headers: [("Cookie", cookie)]).text
            #expect(text.contains("Hello") == shows, "\(sealed)")
        }
    }
}
