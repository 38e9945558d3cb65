import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

/// Review N7 over real sockets: a guesser at one address cannot lock an operator or an app user
/// out of their account from another, and the console lists the accounts under attack.
@Suite struct SignInLockoutPagesTests {
    static let guesser = "127.0.0.1"
    static let owner = "127.0.0.2"

    /// Posts wrong passwords from ``guesser``, each after waiting out any delay, until the
    /// address is refused; answers how many failed first.
    private static func guessUntilRefused(_ server: ConsoleTestServer, _ post: (String) throws -> TestResponse) throws -> Int {
        var failures = 0
        for index in 0..<40 {
            server.clock.advance(by: 61_000)
            let response = try post("wrong guess \(index)")
            if response.status == 429 { return failures }
            #expect(response.status == 401)
            failures += 1
        }
        Issue.record("forty guesses were never refused")
        return failures
    }

    @Test func anOperatorLogsInFromAnotherAddressWhileTheGuesserIsRefused() throws {
        let server = try ConsoleTestServer(controlledClock: true)
        try server.store.addOperator("bob", password: "operator password")
        let form = try server.get("/console/login")
        let cookie = try #require(form.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
        let csrf = try #require(HTML.hiddenFields(in: form.text).first { $0.0 == "csrfToken" }?.1)
        func login(_ password: String, from address: String) throws -> TestResponse {
            try server.post(
                "/console/login", form: [("csrfToken", csrf), ("name", "bob"), ("password", password)], headers: [("Cookie", cookie)],
                from: address)
        }
        #expect(try Self.guessUntilRefused(server) { try login($0, from: Self.guesser) } == 20)
        let refused = try login("operator password", from: Self.guesser)
        #expect(refused.status == 429 && Int(refused.header("Retry-After") ?? "") ?? 0 > 800)

        let owner = try login("operator password", from: Self.owner)
        #expect(owner.status == 303 && owner.header("Location") == "/console/containers")
        let session = try #require(owner.header("Set-Cookie")?.split(separator: ";").first.map(String.init))

        // The audit page and the management API name the account under attack.
        let page = try server.get("/console/audit", headers: [("Cookie", session)])
        #expect(page.status == 200)
        let attacks = try #require(HTML.text(in: page.text, between: "<table class=\"list attacks\">", and: "</table>"))
        #expect(attacks.contains("<span class=\"value\">bob</span> <span class=\"muted small\">operator</span>"))
        #expect(attacks.contains("<td data-label=\"Failed sign-ins\">20</td><td data-label=\"Addresses\">1</td>"))
        let listed = try HTTPTestClient.send(
            port: server.port, method: "GET", target: "/admin/v1/sign-in-attacks", headers: [("Cookie", session)])
        let account = try #require(try listed.json()["accounts"]?.arrayValue?.first)
        #expect(account["kind"] == "operator" && account["name"] == "bob" && account["failures"] == 20 && account["addresses"] == 1)
    }

    @Test func anAppUserSignsInFromAnotherAddressWhileTheGuesserIsRefused() throws {
        let server = try ConsoleTestServer(controlledClock: true)
        try server.store.addOperator("root", password: "operator password")
        let bob = try server.store.addUser(server.container, name: "bob", password: "the right password")
        let token = try server.store.createAPIToken(server.container, .development, signInCallback: "https://app.example.com/done")
        let opened = try server.openSignIn(apiToken: token.token)
        func signIn(_ password: String, from address: String) throws -> TestResponse {
            try server.post(form: opened.fields(name: "bob", password: password), headers: opened.postHeaders, from: address)
        }
        #expect(try Self.guessUntilRefused(server) { try signIn($0, from: Self.guesser) } == 20)
        #expect(try signIn("the right password", from: Self.guesser).status == 429)

        let owner = try signIn("the right password", from: Self.owner)
        #expect(owner.status == 303)
        let location = try #require(owner.header("Location").flatMap(URLComponents.init(string:)))
        let webAuthToken = try #require(location.queryItems?.first { $0.name == "ckWebAuthToken" }?.value)
        #expect(
            try server.store.session(forWebAuthToken: webAuthToken, in: server.container, .development).userRecordName == bob.userRecordName
        )

        let management = try server.store.createManagementToken(for: "root", name: "t").text
        let listed = try HTTPTestClient.send(
            port: server.port, method: "GET", target: "/admin/v1/sign-in-attacks", headers: [("Authorization", "Bearer " + management)])
        let accounts = try #require(try listed.json()["accounts"]?.arrayValue)
        #expect(accounts.count == 1)
        let account = try #require(accounts.first)
        #expect(account["kind"] == "user" && account["container"] == "iCloud.com.example.Tests" && account["name"] == "bob")
        #expect(account["failures"] == 20 && account["addresses"] == 1)
        #expect(account["lastFailure"]?.int64Value == server.store.signInAttacks().first?.lastFailure)
    }
}
