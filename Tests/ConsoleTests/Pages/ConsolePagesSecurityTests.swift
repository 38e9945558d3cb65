import CloudKitWire
import CloudStore
import Console
import Foundation
import HTTPServer
import TestSupport
import Testing

/// Who may use the console's pages: every page needs an operator's session, every form post
/// its form token; values from records are shown as text; a login gets a fresh session id.
@Suite struct ConsolePagesSecurityTests {
    static let operatorName = "root"
    static let password = "operator password"
    static let hostile = #"<script>alert(1)</script> "><img src=x onerror=alert(2)>"#

    /// The push token alice holds, and its id, what a revocation names.
    static let alicePushToken = "alicedevicetoken"
    static let alicePushTokenID = PushToken(
        token: alicePushToken, container: try! ContainerIdentifier("iCloud.com.example.Tests"), environment: .development,
        apnsEnvironment: "development", userRecordName: nil, created: 0
    ).id

    /// A server with an operator, a user `alice` holding a push token, a `Note` type and one record `r1`.
    private static func server(publicURL: String? = nil) throws -> ConsoleTestServer {
        let server = try ConsoleTestServer(publicURL: publicURL)
        try server.store.addOperator(operatorName, password: password)
        let alice = try server.store.addUser(server.container, name: "alice", password: "a long passphrase")
        try server.store.registerPushToken(
            alicePushToken, server.container, .development, apnsEnvironment: "development", caller: .user(alice.userRecordName))
        try server.store.importSchema(
            "DEFINE SCHEMA\n RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE, tags LIST<STRING>);\n",
            into: server.container, .development)
        _ = try server.store.database(server.container, .development, .public, as: .operator()).modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "r1", recordType: "Note",
                    fields: ["title": .string(hostile), "tags": .list(.string, [.string(hostile)])])
            ]))
        return server
    }

    /// Every route the console mounts under `/console/`, with its path parameters filled in.
    private static func consoleRoutes() throws -> [(method: String, path: String)] {
        let values = [
            ":container": "iCloud.com.example.Tests", ":environment": "development", ":database": "public", ":record": "r1",
            ":zone": "Work", ":user": "alice", ":token": "TOKEN", ":key": "KEY", ":type": "Note", ":field": "title",
        ]
        return try ConsoleTestServer(createContainer: false).routes.filter { $0.pattern.hasPrefix("/console/") }.flatMap { route in
            let path = route.pattern.split(separator: "/").map { values[String($0)] ?? String($0) }.joined(separator: "/")
            return route.methods.filter { $0 == .get || $0 == .post }.map { ($0.rawValue, "/" + path) }
        }
    }

    /// What the console's actions could change, to check a refused request changed nothing.
    private static func snapshot(_ server: ConsoleTestServer) throws -> String {
        let store = server.store
        let record = try store.database(server.container, .development, .public, as: .operator()).lookup([RecordLookup("r1")]).first?.record
        // Sorted, as two equal dictionaries may describe themselves in different orders.
        let fields = record.map { "\($0.changeTag) \($0.fields.sorted { $0.key < $1.key })" } ?? "none"
        return [
            "\(try store.containers().map(\.identifier))", "\(try store.apiTokens(server.container).count)",
            "\(try store.users(server.container).map(\.name))", try store.exportSchema(server.container, .development),
            "\(try store.usage(of: server.container).mapValues(\.records).sorted { $0.key.rawValue < $1.key.rawValue })",
            "\(try store.managementTokens().count)", fields, "\(try store.pushTokens(server.container, .development).map(\.id))",
        ].joined(separator: "|")
    }

    /// Fields that would make each form post succeed, were it allowed.
    private static let plausibleForm: [(String, String)] = [
        ("identifier", "iCloud.com.example.Other"), ("name", "fresh"), ("password", "a new passphrase"), ("zoneName", "Fresh"),
        ("recordType", "Note"), ("field", "title"), ("index", "SORTABLE"), ("type", "STRING"), ("record", "r1"),
        ("field.title", "changed"), ("confirmed", "yes"), ("pushTokenID", alicePushTokenID),
        ("text", "DEFINE SCHEMA\n RECORD TYPE Other (x STRING);\n"),
    ]

    @Test func everyPageSendsAVisitorWithoutASessionToTheLoginAndChangesNothing() throws {
        let server = try Self.server()
        let routes = try Self.consoleRoutes()
        let open = ["/console", "/console/", "/console/login", "/console/logout"]
        #expect(routes.count > 30, "the console's routes were found")
        let before = try Self.snapshot(server)
        let forged = [("Cookie", "cumulus_console=" + String(repeating: "c", count: 64))]
        for route in routes where !open.contains(route.path) {
            for headers in [[], forged] {
                let response =
                    route.method == "GET"
                    ? try server.get(route.path, headers: headers)
                    : try server.post(route.path, form: Self.plausibleForm, headers: headers)
                #expect(response.status == 303, "\(route.method) \(route.path)")
                #expect(response.header("Location")?.hasPrefix("/console/login") == true, "\(route.method) \(route.path)")
                #expect(!response.text.contains("iCloud.com.example.Tests"), "\(route.method) \(route.path) shows nothing of the container")
            }
        }
        let after = try Self.snapshot(server)
        #expect(after == before, "\(zip(before.split(separator: "|"), after.split(separator: "|")).filter { $0 != $1 })")
        // The console's front door, with or without its slash, sends a visitor to the login.
        for door in ["/console", "/console/"] {
            let response = try server.get(door)
            #expect(response.status == 303 && response.header("Location") == "/console/login", "\(door)")
        }
        // After the login, the visitor lands where they were going.
        let target = "/console/containers/iCloud.com.example.Tests/development/public/records?type=Note"
        #expect(try server.get(target).header("Location") == "/console/login?next=" + FormEncoding.component(target))
    }

    @Test func everyFormPostWithoutItsFormTokenIsRefusedAndChangesNothing() throws {
        let server = try Self.server()
        let signedIn = try server.store.signInOperator(Self.operatorName, password: Self.password, clientAddress: nil)
        let cookie = ("Cookie", "cumulus_console=\(signedIn.secret)")
        let token = signedIn.session.csrfToken
        let before = try Self.snapshot(server)
        for route in try Self.consoleRoutes() where route.method == "POST" && !route.path.hasPrefix("/console/login") {
            for csrf in [nil, "", "wrong", String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")] {
                let fields = Self.plausibleForm + (csrf.map { [("csrfToken", $0)] } ?? [])
                let response = try server.post(route.path, form: fields, headers: [cookie])
                #expect(response.status == 403, "\(route.path) with form token \(csrf ?? "none")")
            }
            // The right token from another site is refused too.
            let crossSite = try server.post(
                route.path, form: Self.plausibleForm + [("csrfToken", token)],
                headers: [cookie, ("Sec-Fetch-Site", "cross-site")])
            #expect(crossSite.status == 403, "\(route.path) from another site")
        }
        let after = try Self.snapshot(server)
        #expect(after == before, "\(zip(before.split(separator: "|"), after.split(separator: "|")).filter { $0 != $1 })")
        #expect(try server.get("/console/containers", headers: [cookie]).status == 200, "the session still works")
        // With its token, the same post goes through.
        let created = try server.post(
            "/console/containers", form: [("identifier", "iCloud.com.example.Other"), ("csrfToken", token)],
            headers: [cookie, ("Sec-Fetch-Site", "same-origin")])
        #expect(created.status == 303)
        #expect(try server.store.containers().map(\.identifier.rawValue).contains("iCloud.com.example.Other"))
    }

    @Test func aHostileFieldValueIsShownAsTextInEveryView() throws {
        let server = try Self.server()
        let signedIn = try server.store.signInOperator(Self.operatorName, password: Self.password, clientAddress: nil)
        let cookie = [("Cookie", "cumulus_console=\(signedIn.secret)")]
        let base = "/console/containers/iCloud.com.example.Tests/development/public/records"
        let escaped = "&lt;script&gt;alert(1)&lt;/script&gt; &quot;&gt;&lt;img src=x onerror=alert(2)&gt;"
        for (view, path) in [
            ("list", base + "?type=Note&f0.field=title&f0.op=BEGINS_WITH&f0.value=%3C&show=title&show=tags"),
            ("detail", base + "/r1"), ("edit form", base + "/r1/edit"),
            ("query form", base + "?type=Note&f0.field=title&f0.op=EQUALS&f0.value=" + FormEncoding.component(Self.hostile)),
        ] {
            let page = try server.get(path, headers: cookie)
            #expect(page.status == 200, "\(view)")
            #expect(!page.text.contains("<script>alert"), "\(view) has no live script")
            #expect(!page.text.contains("<img src=x"), "\(view) has no live image")
            #expect(
                page.text.contains(escaped) || page.text.contains(escaped.replacingOccurrences(of: "&quot;", with: "&#34;")),
                "\(view) shows the value as text")
        }
        // The export carries the value as data, never as a page.
        let export = try server.get(base + "/export?type=Note&f0.field=title&f0.op=BEGINS_WITH&f0.value=%3C&format=csv", headers: cookie)
        #expect(export.header("Content-Type")?.hasPrefix("text/csv") == true)
        #expect(export.header("Content-Disposition")?.hasPrefix("attachment") == true)
    }

    @Test func aLoginStartsANewSessionAndEndsTheOneBefore() throws {
        let server = try Self.server()
        let old = try server.store.signInOperator(Self.operatorName, password: Self.password, clientAddress: nil).secret
        #expect(try server.get("/console/containers", headers: [("Cookie", "cumulus_console=\(old)")]).status == 200)

        let form = try server.get("/console/login")
        let loginCookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        #expect(loginCookie.hasPrefix("cumulus_login_csrf="))
        let csrf = try #require(HTML.hiddenFields(in: form.text).first { $0.0 == "csrfToken" }?.1)
        let headers = [("Cookie", "\(loginCookie); cumulus_console=\(old)"), ("Sec-Fetch-Site", "same-origin")]

        let wrong = try server.post(
            "/console/login", form: [("csrfToken", csrf), ("name", Self.operatorName), ("password", "nope")], headers: headers)
        #expect(wrong.status == 401 && wrong.text.contains("Incorrect name or password."))
        let withoutToken = try server.post(
            "/console/login", form: [("name", Self.operatorName), ("password", Self.password)], headers: headers)
        #expect(withoutToken.status == 403)

        let login = try server.post(
            "/console/login", form: [("csrfToken", csrf), ("name", Self.operatorName), ("password", Self.password)], headers: headers)
        #expect(login.status == 303 && login.header("Location") == "/console/containers")
        let setCookie = try #require(login.header("Set-Cookie"))
        #expect(setCookie.contains("; Path=/; HttpOnly; SameSite=Strict") && !setCookie.contains("Secure"))
        let new = String(setCookie.prefix { $0 != ";" }.dropFirst("cumulus_console=".count))
        #expect(new.count >= 32 && new != old)
        #expect(try server.get("/console/containers", headers: [("Cookie", "cumulus_console=\(new)")]).status == 200)
        #expect(
            try server.get("/console/containers", headers: [("Cookie", "cumulus_console=\(old)")]).status == 303, "the old session ended")
    }

    @Test func behindTLSTheSessionCookieIsSecure() throws {
        let server = try Self.server(publicURL: "https://cloud.example.com")
        let form = try server.get("/console/login")
        #expect(form.header("Set-Cookie")?.contains("; Secure") == true)
        let loginCookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let csrf = try #require(HTML.hiddenFields(in: form.text).first { $0.0 == "csrfToken" }?.1)
        let login = try server.post(
            "/console/login", form: [("csrfToken", csrf), ("name", Self.operatorName), ("password", Self.password)],
            headers: [("Cookie", loginCookie)])
        #expect(login.status == 303)
        #expect(login.header("Set-Cookie")?.hasSuffix("; Secure") == true)
    }

    @Test func loginIsThrottledLikeAppSignIn() throws {
        let server = try Self.server()
        let form = try server.get("/console/login")
        let loginCookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let csrf = try #require(HTML.hiddenFields(in: form.text).first { $0.0 == "csrfToken" }?.1)
        var statuses: [Int] = []
        for _ in 0..<12 {
            statuses.append(
                try server.post(
                    "/console/login", form: [("csrfToken", csrf), ("name", Self.operatorName), ("password", "guess")],
                    headers: [("Cookie", loginCookie)]
                ).status)
        }
        #expect(statuses.first == 401)
        #expect(statuses.last == 429, "\(statuses)")
        // Throttled, even the right password waits.
        let right = try server.post(
            "/console/login", form: [("csrfToken", csrf), ("name", Self.operatorName), ("password", Self.password)],
            headers: [("Cookie", loginCookie)])
        #expect(right.status == 429 && right.header("Retry-After") != nil)
    }
}
