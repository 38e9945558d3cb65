import CloudStore
import Foundation
import TestSupport
import Testing

/// `POST /signin`: passwords checked, the web auth token handed back by redirect or postMessage,
/// forged posts refused.
@Suite struct SignInSubmitTests {
    static let password = "correct horse battery staple"

    /// A server with user `alice` and `make` applied for the API token.
    func setUp(_ make: (ConsoleTestServer) throws -> APIToken) throws -> (ConsoleTestServer, APIToken, AppUser) {
        let server = try ConsoleTestServer()
        let user = try server.store.addUser(server.container, name: "alice", password: Self.password)
        return (server, try make(server), user)
    }

    @Test func wrongNameOrPasswordGetsTheFormAgainWithOneGenericMessage() throws {
        let (server, token, _) = try setUp { try $0.store.createAPIToken($0.container, .development) }
        let opened = try server.openSignIn(apiToken: token.token)
        var pages: [String] = []
        for (name, password) in [("alice", "wrong"), ("nobody", Self.password), ("", "")] {
            let response = try server.post(form: opened.fields(name: name, password: password), headers: opened.postHeaders)
            #expect(response.status == 401)
            #expect(response.text.contains("<p class=\"alert\" role=\"alert\">Incorrect name or password</p>"))
            #expect(!response.text.contains(password) || password.isEmpty)
            #expect(response.header("Referrer-Policy") == "no-referrer")
            // The form comes back ready for another try, with the same form token.
            #expect(HTML.hiddenFields(in: response.text).map(\.1) == opened.hiddenFields.map(\.1))
            pages.append(response.text.replacingOccurrences(of: "value=\"\(name)\"", with: "value=\"\""))
        }
        // Nothing tells an unknown name from a wrong password.
        #expect(pages[0] == pages[1])
    }

    @Test func aCallbackGetsA303WithTheTokenInItsQuery() throws {
        let (server, token, user) = try setUp {
            try $0.store.createAPIToken($0.container, .development, signInCallback: "https://app.example.com/done?state=a%20b#top")
        }
        let opened = try server.openSignIn(apiToken: token.token)
        let response = try server.post(form: opened.fields(name: "alice", password: Self.password), headers: opened.postHeaders)
        #expect(response.status == 303)
        #expect(response.header("Referrer-Policy") == "no-referrer")
        #expect(response.header("Cache-Control") == "no-store")
        let location = try #require(response.header("Location"))
        #expect(location.hasPrefix("https://app.example.com/done?state=a%20b&ckWebAuthToken="))
        #expect(location.hasSuffix("#top"))
        let components = try #require(URLComponents(string: location))
        let webAuthToken = try #require(components.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        #expect(webAuthToken.contains("+") || webAuthToken.contains("/") || webAuthToken.contains("="))
        let session = try server.store.session(forWebAuthToken: webAuthToken, in: server.container, .development)
        #expect(session.userRecordName == user.userRecordName)
        #expect(session.idleLifetime == server.store.configuration.webAuthTokenLifetime)
    }

    @Test func anAppSchemeCallbackKeepsItsScheme() throws {
        let (server, token, user) = try setUp {
            try $0.store.createAPIToken($0.container, .development, signInCallback: "cloudkit-icloud.com.example.notes://callback")
        }
        let opened = try server.openSignIn(apiToken: token.token)
        let response = try server.post(
            form: opened.fields(name: "Alice", password: Self.password, keepSignedIn: true), headers: opened.postHeaders)
        #expect(response.status == 303)
        let location = try #require(response.header("Location"))
        #expect(location.hasPrefix("cloudkit-icloud.com.example.notes://callback?ckWebAuthToken="))
        let encoded = String(location.dropFirst("cloudkit-icloud.com.example.notes://callback?ckWebAuthToken=".count))
        #expect(!encoded.contains("+") && !encoded.contains("/") && !encoded.contains("="))
        let webAuthToken = try #require(encoded.removingPercentEncoding)
        let session = try server.store.session(forWebAuthToken: webAuthToken, in: server.container, .development)
        #expect(session.userRecordName == user.userRecordName)
        // "Keep me signed in" was ticked.
        #expect(session.idleLifetime == server.store.configuration.keepSignedInLifetime)
    }

    @Test func withoutACallbackThePagePostsTheTokenToTheOpener() throws {
        let (server, token, user) = try setUp {
            try $0.store.createAPIToken($0.container, .development, allowedOrigins: ["https://app.example.com"])
        }
        let opened = try server.openSignIn(apiToken: token.token, origin: "https://app.example.com")
        let response = try server.post(form: opened.fields(name: "alice", password: Self.password), headers: opened.postHeaders)
        #expect(response.status == 200)
        let page = response.text
        #expect(page.contains("window.opener.postMessage({ ckWebAuthToken: token, ckSession: token }, targetOrigin);"))
        #expect(page.contains("var targetOrigin = \"https://app.example.com\";"))
        let scripted = try #require(HTML.text(in: page, between: "var token = \"", and: "\";"))
        let shown = try #require(HTML.text(in: page, between: "readonly>", and: "</textarea>"))
        #expect(scripted == shown)
        let session = try server.store.session(forWebAuthToken: scripted, in: server.container, .development)
        #expect(session.userRecordName == user.userRecordName)
        #expect(page.contains("as <strong>alice</strong>"))
        // The one inline script runs by the nonce the policy names, nothing else may.
        let policy = try #require(response.header("Content-Security-Policy"))
        let nonce = try #require(HTML.text(in: page, between: "<script nonce=\"", and: "\">"))
        #expect(policy.contains("script-src 'nonce-\(nonce)';"))
        #expect(page.components(separatedBy: "<script").count == 2)
        #expect(response.header("Referrer-Policy") == "no-referrer")
        #expect(response.header("Cache-Control") == "no-store")
    }

    @Test func aTokenForAnyOriginPostsToAnyOpenerOnlyWithoutAnOrigin() throws {
        let (server, token, _) = try setUp { try $0.store.createAPIToken($0.container, .development, allowedOrigins: ["*"]) }
        let opened = try server.openSignIn(apiToken: token.token)
        let page = try server.post(form: opened.fields(name: "alice", password: Self.password), headers: opened.postHeaders).text
        #expect(page.contains("var targetOrigin = \"*\";"))
        let named = try server.openSignIn(apiToken: token.token, origin: "http://localhost:3000")
        let namedPage = try server.post(form: named.fields(name: "alice", password: Self.password), headers: named.postHeaders).text
        #expect(namedPage.contains("var targetOrigin = \"http://localhost:3000\";"))
    }

    @Test func aTokenMadeWithoutOriginsReachesOnlyThisServerOrItsCallback() throws {
        // The default: no allowed origins. The token is posted to this server's own origin only,
        // so a foreign page that opened sign-in receives nothing.
        let (server, token, _) = try setUp { try $0.store.createAPIToken($0.container, .development) }
        #expect(token.allowedOrigins.isEmpty)
        let opened = try server.openSignIn(apiToken: token.token)
        let page = try server.post(form: opened.fields(name: "alice", password: Self.password), headers: opened.postHeaders).text
        #expect(page.contains("var targetOrigin = \"http://127.0.0.1:\(server.port)\";"))
        #expect(!page.contains("var targetOrigin = \"*\";"))
        // A foreign page may not even ask.
        let foreign = try server.get("/signin?ckAPIToken=\(token.token)&origin=https%3A%2F%2Fevil.example.com")
        #expect(foreign.status == 403)
        // Its own origin may.
        let own = try server.get("/signin?ckAPIToken=\(token.token)&origin=" + FormEncoding.component("http://127.0.0.1:\(server.port)"))
        #expect(own.status == 200)
    }

    @Test func theSignInPageNamesTheSiteThatAsked() throws {
        let (server, token, _) = try setUp {
            try $0.store.createAPIToken(
                $0.container, .development, allowedOrigins: ["https://app.example.com"], signInCallback: "https://done.example.com/back?x=1"
            )
        }
        let page = try server.get("/signin?ckAPIToken=\(token.token)").text
        #expect(page.contains("https://done.example.com"))
        let named = try server.get("/signin?ckAPIToken=\(token.token)&origin=https%3A%2F%2Fapp.example.com").text
        #expect(named.contains("https://app.example.com"))
    }

    @Test func guessingIsHeldOffWithAReadablePage() throws {
        let (server, token, _) = try setUp { try $0.store.createAPIToken($0.container, .development) }
        let opened = try server.openSignIn(apiToken: token.token)
        for _ in 0..<5 {
            let failed = try server.post(form: opened.fields(name: "alice", password: "a wrong guess"), headers: opened.postHeaders)
            #expect(failed.status == 401)
        }
        let held = try server.post(form: opened.fields(name: "alice", password: Self.password), headers: opened.postHeaders)
        #expect(held.status == 429)
        #expect(held.header("Retry-After") == "1")
        #expect(held.text.contains("Too many failed sign-ins for this account"))
        #expect(!held.text.contains("webAuthToken"))
    }

    @Test func forgedPostsAreRefused() throws {
        let (server, token, _) = try setUp {
            try $0.store.createAPIToken($0.container, .development, signInCallback: "https://app.example.com/done")
        }
        let opened = try server.openSignIn(apiToken: token.token)
        let fields = opened.fields(name: "alice", password: Self.password)
        let withoutToken = fields.filter { $0.0 != "csrfToken" }
        let wrongToken = withoutToken + [("csrfToken", String(repeating: "a", count: 64))]
        let attempts: [(String, [(String, String)], [(String, String)])] = [
            ("no cookie, no field", withoutToken, []),
            ("field, no cookie", fields, []),
            ("cookie, no field", withoutToken, opened.postHeaders),
            ("cookie, wrong field", wrongToken, opened.postHeaders),
            ("another site's cookie", fields, [("Cookie", "cumulus_signin_csrf=" + String(repeating: "b", count: 64))]),
            ("matching, but sent from another site", fields, [("Cookie", opened.cookie), ("Sec-Fetch-Site", "cross-site")]),
        ]
        for (label, form, headers) in attempts {
            let response = try server.post(form: form, headers: headers)
            #expect(response.status == 403, "\(label)")
            #expect(response.header("Location") == nil, "\(label)")
            #expect(response.header("Content-Type") == "text/html; charset=utf-8", "\(label)")
            #expect(response.text.contains("Error 403"), "\(label)")
        }
        // The genuine form still works.
        #expect(try server.post(form: fields, headers: opened.postHeaders).status == 303)
    }

    @Test func userNamesAreNeverRenderedAsMarkup() throws {
        let server = try ConsoleTestServer()
        let name = "<script>alert(1)</script>\"'&"
        try server.store.addUser(server.container, name: name, password: Self.password)
        let token = try server.store.createAPIToken(server.container, .development)
        let opened = try server.openSignIn(apiToken: token.token)
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"

        let failed = try server.post(form: opened.fields(name: name, password: "wrong"), headers: opened.postHeaders)
        #expect(failed.status == 401)
        #expect(failed.text.contains("value=\"\(escaped)\""))
        #expect(!failed.text.contains("<script>alert(1)"))

        let signedIn = try server.post(form: opened.fields(name: name, password: Self.password), headers: opened.postHeaders)
        #expect(signedIn.status == 200)
        #expect(signedIn.text.contains("as <strong>\(escaped)</strong>"))
        #expect(!signedIn.text.contains("<script>alert(1)"))
    }

    @Test func formsAreDecodedAsBrowsersEncodeThem() throws {
        let server = try ConsoleTestServer()
        let password = "p+ss w%rd&x=y ü ✓"
        let user = try server.store.addUser(server.container, name: "bob smith", password: password)
        let token = try server.store.createAPIToken(server.container, .development, signInCallback: "https://app.example.com/done")
        let opened = try server.openSignIn(apiToken: token.token)
        let body = FormEncoding.encode(opened.fields(name: "bob smith", password: password))
        #expect(body.contains("name=bob+smith"))
        #expect(body.contains("p%2Bss+w%25rd%26x%3Dy+%C3%BC+%E2%9C%93"))
        let response = try server.post(
            "/signin", body: body, headers: [("Content-Type", "application/x-www-form-urlencoded; charset=UTF-8")] + opened.postHeaders)
        #expect(response.status == 303)
        let location = try #require(response.header("Location").flatMap(URLComponents.init(string:)))
        let webAuthToken = try #require(location.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        #expect(
            try server.store.session(forWebAuthToken: webAuthToken, in: server.container, .development).userRecordName
                == user.userRecordName)
    }

    @Test func unreadableFormsGetReadablePages() throws {
        let (server, token, _) = try setUp { try $0.store.createAPIToken($0.container, .development) }
        let opened = try server.openSignIn(apiToken: token.token)
        let json = try server.post("/signin", body: "{}", headers: [("Content-Type", "application/json")] + opened.postHeaders)
        #expect(json.status == 415)
        #expect(json.text.contains("application/x-www-form-urlencoded"))
        let malformed = try server.post(
            "/signin", body: "name=%ZZ", headers: [("Content-Type", "application/x-www-form-urlencoded")] + opened.postHeaders)
        #expect(malformed.status == 400)
        #expect(malformed.text.contains("malformed %-escape"))
        // A genuine form whose API token no longer exists.
        var fields = opened.fields(name: "alice", password: Self.password)
        fields[0] = ("ckAPIToken", String(repeating: "f", count: 64))
        let unknown = try server.post(form: fields, headers: opened.postHeaders)
        #expect(unknown.status == 400)
        #expect(unknown.text.contains("not known to this server"))
    }
}
