import CloudStore
import Console
import Foundation
import TestSupport
import Testing

/// `GET /signin`: the form for a good link, readable refusals for bad ones.
@Suite struct SignInPageTests {
    @Test func rendersTheFormForAValidToken() throws {
        let server = try ConsoleTestServer()
        let token = try server.store.createAPIToken(server.container, .development, allowedOrigins: ["https://app.example.com"])
        let opened = try server.openSignIn(apiToken: token.token, origin: "https://app.example.com")
        let response = opened.response
        #expect(response.text.contains("to <strong>iCloud.com.example.Tests</strong>"))
        #expect(response.text.contains("name=\"name\""))
        #expect(response.text.contains("type=\"password\""))
        #expect(response.text.contains("Keep me signed in"))
        let hidden = Dictionary(opened.hiddenFields, uniquingKeysWith: { first, _ in first })
        #expect(hidden["ckAPIToken"] == token.token)
        #expect(hidden["origin"] == "https://app.example.com")
        // The form token repeats the cookie's, which other sites can neither read nor send.
        #expect(opened.cookie == "cumulus_signin_csrf=\(hidden["csrfToken"] ?? "-")")
        let cookie = try #require(response.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly"))
        #expect(cookie.contains("SameSite=Strict"))
        #expect(cookie.contains("Path=/signin"))
        #expect(!cookie.contains("Secure"))
        #expect(response.header("Referrer-Policy") == "no-referrer")
        #expect(response.header("Cache-Control") == "no-store")
        #expect(response.header("X-Frame-Options") == "DENY")
        #expect(response.header("Content-Security-Policy")?.contains("form-action 'self'; frame-ancestors 'none'") == true)
    }

    @Test func keepsTheBrowsersFormTokenSoSeveralFormsWork() throws {
        let server = try ConsoleTestServer()
        let token = try server.store.createAPIToken(server.container, .development)
        let first = try server.openSignIn(apiToken: token.token)
        let again = try server.get("/signin?ckAPIToken=\(token.token)", headers: [("Cookie", "other=1; " + first.cookie)])
        #expect(again.status == 200)
        #expect(again.header("Set-Cookie") == nil)
        #expect(HTML.hiddenFields(in: again.text).contains { $0 == "csrfToken" && "cumulus_signin_csrf=\($1)" == first.cookie })
    }

    @Test func marksTheCookieSecureBehindHTTPS() throws {
        let server = try ConsoleTestServer(publicURL: "https://cloud.example.com")
        let token = try server.store.createAPIToken(server.container, .development)
        let response = try server.get("/signin?ckAPIToken=\(token.token)")
        #expect(response.header("Set-Cookie")?.hasSuffix("; Secure") == true)
    }

    @Test func letsTheFormRedirectToTheCallback() throws {
        let server = try ConsoleTestServer()
        let web = try server.store.createAPIToken(server.container, .development, signInCallback: "https://app.example.com:8443/done?x=1")
        let app = try server.store.createAPIToken(
            server.container, .development, signInCallback: "cloudkit-icloud.com.example.tests://callback")
        let webPolicy = try server.get("/signin?ckAPIToken=\(web.token)").header("Content-Security-Policy")
        #expect(webPolicy?.contains("form-action 'self' https://app.example.com:8443;") == true)
        let appPolicy = try server.get("/signin?ckAPIToken=\(app.token)").header("Content-Security-Policy")
        #expect(appPolicy?.contains("form-action 'self' cloudkit-icloud.com.example.tests:;") == true)
    }

    @Test(arguments: [
        ("/signin", 400, "must carry the app&#39;s API token"),
        ("/signin?ckAPIToken=", 400, "must carry the app&#39;s API token"),
        ("/signin?ckAPIToken=xyz", 400, "not known to this server"),
        ("/signin?ckAPIToken=" + String(repeating: "0", count: 64), 400, "not known to this server"),
        ("/signin?ckAPIToken=%ZZ", 400, "not known to this server"),
    ])
    func refusesMissingAndUnknownTokens(target: String, status: Int, message: String) throws {
        let server = try ConsoleTestServer()
        let response = try server.get(target)
        #expect(response.status == status)
        #expect(response.header("Content-Type") == "text/html; charset=utf-8")
        #expect(response.text.contains(message))
        #expect(response.text.contains("Error \(status)"))
        #expect(response.header("Set-Cookie") == nil)
        #expect(response.header("Referrer-Policy") == "no-referrer")
    }

    @Test func refusesOriginsTheTokenDoesNotAllow() throws {
        let server = try ConsoleTestServer()
        let token = try server.store.createAPIToken(server.container, .development, allowedOrigins: ["https://app.example.com"])
        let cases: [(origin: String?, status: Int, message: String)] = [
            ("https://evil.example.com", 403, "does not allow signing in from https://evil.example.com"),
            ("javascript:alert(1)", 400, "is not a web origin"),
            ("https://app.example.com/path", 400, "is not a web origin"),
            // No origin and no callback: nowhere the token could safely be handed.
            (nil, 400, "does not name the page that opened it"),
        ]
        for (origin, status, message) in cases {
            var target = "/signin?ckAPIToken=\(token.token)"
            if let origin { target += "&origin=" + FormEncoding.component(origin) }
            let response = try server.get(target)
            #expect(response.status == status, "\(origin ?? "no origin")")
            #expect(response.text.contains(message), "\(origin ?? "no origin")")
        }
        // Upper case in the origin's host is the same origin.
        #expect(try server.get("/signin?ckAPIToken=\(token.token)&origin=https%3A%2F%2FApp.Example.com").status == 200)
    }

    @Test func theLinkBuilderAndThePageAgree() throws {
        let server = try ConsoleTestServer()
        let token = try server.store.createAPIToken(server.container, .development, allowedOrigins: ["http://127.0.0.1:9999"])
        let url = Console.signInURL(base: "http://127.0.0.1:\(server.port)/", apiToken: token.token, origin: "http://127.0.0.1:9999")
        #expect(url == "http://127.0.0.1:\(server.port)/signin?ckAPIToken=\(token.token)&origin=http%3A%2F%2F127.0.0.1%3A9999")
        let response = try server.get(String(url.dropFirst("http://127.0.0.1:\(server.port)".count)))
        #expect(response.status == 200)
        #expect(HTML.hiddenFields(in: response.text).contains { $0 == "origin" && $1 == "http://127.0.0.1:9999" })
    }
}
