import CloudKitWire
import CloudStore
import Console
import Foundation
import HTTPServer
import TestSupport
import Testing

/// The management JSON API: who may call it, and every action it offers.
@Suite struct ManagementAPITests {
    /// Every management route, with a body that would succeed for an authorised caller.
    static let routes: [(method: String, path: String, body: String)] = [
        ("GET", "/admin/v1/containers", ""),
        ("POST", "/admin/v1/containers", #"{"identifier":"iCloud.com.example.Other"}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/tokens", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/tokens", "{}"),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/tokens/TOKEN", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/keys", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/keys", "{}"),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/keys/KEY", ""),
        ("DELETE", "/admin/v1/tokens/TOKEN", ""),
        ("DELETE", "/admin/v1/keys/KEY", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/users", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/users", #"{"name":"zed","password":"long enough"}"#),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/users/alice", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/users/alice/password", #"{"password":"another long one"}"#),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/users/alice/sign-out", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/users/alice/export", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/users/alice/erase", #"{"dryRun":true}"#),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/users/alice/discoverable", #"{"discoverable":true}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/schema", ""),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/schema", "DEFINE SCHEMA\n RECORD TYPE Other (title STRING);\n"),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/schema/validate", "DEFINE SCHEMA\n"),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types", #"{"name":"Fresh"}"#),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types/Note/fields",
            #"{"name":"extra","type":"STRING"}"#
        ),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types/Note/fields/title/indexes", #"{"indexes":[]}"#),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types/Note/indexes", #"{"indexes":{"title":[]}}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types/Note/deletion?field=title", ""),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types/Note/fields/title", ""),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/record-types/Note", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/public/records/browse?type=Note", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/public/records/assets?recordType=Note&field=file", "bytes"),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/private/zones?user=alice", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/private/zones", #"{"zoneName":"Z","user":"alice"}"#),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/private/zones/Work?user=alice", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/shared/zones/Work/leave", #"{"user":"bob","owner":"alice"}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/subscriptions", ""),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/public/subscriptions/alice/every-note", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/notifications", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/notifications/queued", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/push-tokens", ""),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/push-tokens/" + alicePushTokenID, ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/shares", ""),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/shares/alice/Trips/share-trip", ""),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/shares/alice/Trips/share-trip/participants/bob", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/public/zones/_defaultZone/changes?after=0", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/public/zones/_defaultZone/changes/next", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/public/zones/_defaultZone/records/n/delivery", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/public/records/query", #"{"query":{"recordType":"Note"}}"#),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/private/records/lookup?user=alice",
            #"{"records":[{"recordName":"n"}]}"#
        ),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/public/records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#
        ),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/public/records/export?format=csv",
            #"{"query":{"recordType":"Note"}}"#
        ),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/deployment", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/deployment", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/schema-guard", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/deployments", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/reset", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/reset", #"{"confirm":"iCloud.com.example.Tests"}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/seeds", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/seeds", #"{"name":"s","recordTypes":["Note"]}"#),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/seeds/s", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/personal-fields", ""),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/personal-fields/Note/title", #"{"personal":true}"#),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/copy-to-development", #"{"recordTypes":["Note"]}"#),
        ("GET", "/admin/v1/audit", ""),
        ("GET", "/admin/v1/audit/export", ""),
        ("GET", "/admin/v1/sign-in-attacks", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/logs", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/logs/export?format=csv", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/logs/tail", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/logs/requests/1", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/security", ""),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/security/record-types/Note/grants", #"{"grants":[]}"#),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/security/roles", #"{"name":"Editor"}"#),
        ("DELETE", "/admin/v1/containers/iCloud.com.example.Tests/development/security/roles/Editor", ""),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/security/simulate",
            #"{"subject":"world","permission":"CREATE","recordType":"Note"}"#
        ),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/users/alice/roles", #"{"roles":[]}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/limits", ""),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/limits", #"{"preset":"cloudkit"}"#),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/usage?range=hour", ""),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/usage/summary?range=hour", ""),
        ("GET", "/admin/v1/management-tokens", ""),
        ("POST", "/admin/v1/management-tokens", #"{"name":"more"}"#),
        ("DELETE", "/admin/v1/management-tokens/ID", ""),
        ("GET", "/admin/v1/operators", ""),
        ("POST", "/admin/v1/operators", #"{"name":"zed","password":"operator password","role":"viewer"}"#),
        ("PUT", "/admin/v1/operators/root/role", #"{"role":"viewer"}"#),
        ("DELETE", "/admin/v1/operators/root", ""),
        ("GET", "/admin/v1/backups", ""),
        ("POST", "/admin/v1/backups", ""),
        ("GET", "/admin/v1/backups/NAME", ""),
        ("DELETE", "/admin/v1/backups/NAME", ""),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/private/restore-from-backup?user=alice",
            #"{"zone":"Work","backup":"NAME"}"#
        ),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/private/trash?user=alice", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/private/trash/restore?user=alice", "{}"),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/public/history?record=n", ""),
        ("POST", "/admin/v1/containers/iCloud.com.example.Tests/development/public/history/revert", #"{"record":"n","version":1}"#),
        (
            "POST", "/admin/v1/containers/iCloud.com.example.Tests/development/private/restore-point?user=alice",
            #"{"zone":"Work","at":"0"}"#
        ),
        ("GET", "/admin/v1/containers/iCloud.com.example.Tests/development/history-retention", ""),
        ("PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/history-retention", #"{"seconds":86400}"#),
    ]

    /// The push token alice holds, and its id, what a revocation names.
    static let alicePushToken = "alicedevicetoken"
    static let alicePushTokenID = PushToken(
        token: alicePushToken, container: try! ContainerIdentifier("iCloud.com.example.Tests"), environment: .development,
        apnsEnvironment: "development", userRecordName: nil, created: 0
    ).id

    /// A server with an operator, a user `alice` with a zone `Work` and a push token, and a `Note` type.
    private static func server() throws -> ConsoleTestServer {
        let server = try ConsoleTestServer()
        try server.store.addOperator("root", password: "operator password")
        let alice = try server.store.addUser(server.container, name: "alice", password: "a long passphrase")
        try server.store.registerPushToken(
            alicePushToken, server.container, .development, apnsEnvironment: "development", caller: .user(alice.userRecordName))
        _ = try server.store.database(server.container, .development, .private, as: .user(alice.userRecordName))
            .modifyZones([ZoneOperation(.create, zoneName: "Work")])
        try server.store.importSchema(
            "DEFINE SCHEMA\n RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE);\n",
            into: server.container, .development)
        return server
    }

    private static func send(
        _ server: ConsoleTestServer, _ method: String, _ path: String, body: String = "", headers: [(String, String)] = []
    )
        throws -> TestResponse
    {
        try HTTPTestClient.send(port: server.port, method: method, target: path, headers: headers, body: Array(body.utf8))
    }

    /// What an operator can observe of the store, to check a refused request changed nothing.
    private static func snapshot(_ server: ConsoleTestServer) throws -> String {
        let store = server.store
        return [
            "\(try store.containers().map(\.identifier))", "\(try store.apiTokens(server.container).count)",
            "\(try store.users(server.container).map { "\($0.name) \($0.isDiscoverable)" })",
            try store.exportSchema(server.container, .development),
            "\(try store.user(named: "alice", in: server.container).map { try store.openSessionCount(of: $0.userRecordName, in: server.container) } ?? -1)",
            "\(try store.usage(of: server.container).mapValues(\.records).sorted { $0.key.rawValue < $1.key.rawValue })",
            "\(try store.managementTokens().map(\.id))", try store.exportSchema(server.container, .production),
            "\(try store.roleAssignments(in: server.container, .development).mapValues { $0.sorted() }.sorted { $0.key < $1.key })",
            "\(try store.limits(of: server.container, .development))", "\(try store.pushTokens(server.container, .development).map(\.id))",
            "\(try store.operators())",
            "\(try store.historyRetention(server.container, .development))",
        ].joined(separator: "|")
    }

    @Test func everyRouteRefusesCallersWithoutAValidCredentialAndChangesNothing() throws {
        let server = try Self.server()
        let alice = try #require(try server.store.user(named: "alice", in: server.container))
        _ = try server.store.signIn(server.container, .development, name: "alice", password: "a long passphrase")
        let revoked = try server.store.createManagementToken(for: "root", name: "old")
        try server.store.revokeManagementToken(revoked.token.id)
        let signedIn = try server.store.signInOperator("root", password: "operator password", clientAddress: nil)
        let before = try Self.snapshot(server)
        let refusals: [(String, [(String, String)], Int)] = [
            ("no credential", [], 401),
            ("a malformed token", [("Authorization", "Bearer nonsense")], 401),
            (
                "a forged token",
                [("Authorization", "Bearer cumulus_mt_" + String(repeating: "a", count: 16) + "_" + String(repeating: "b", count: 64))], 401
            ),
            ("a revoked token", [("Authorization", "Bearer " + revoked.text)], 401),
            ("another scheme", [("Authorization", "Basic cm9vdDpvcGVyYXRvciBwYXNzd29yZA==")], 401),
            ("an unknown session", [("Cookie", "cumulus_console=" + String(repeating: "c", count: 64))], 401),
            ("an app user's web auth token", [("Cookie", "cumulus_console=" + alice.userRecordName)], 401),
        ]
        for (route, (what, headers, status)) in Self.routes.flatMap({ route in refusals.map { (route, $0) } }) {
            let response = try Self.send(server, route.method, route.path, body: route.body, headers: headers)
            #expect(response.status == status, "\(route.method) \(route.path) with \(what)")
            let body = try response.json()
            #expect(body["serverErrorCode"]?.stringValue == "AUTHENTICATION_FAILED", "\(route.method) \(route.path) with \(what)")
            #expect(response.header("Cache-Control") == "no-store")
        }
        // A console session without its CSRF token may read but not change anything.
        for route in Self.routes where route.method != "GET" {
            let token = signedIn.session.csrfToken
            for csrf in [nil, "wrong", String(token.dropLast()) + (token.hasSuffix("0") ? "1" : "0")] {
                var headers = [("Cookie", "cumulus_console=\(signedIn.secret)")]
                if let csrf { headers.append(("X-CSRF-Token", csrf)) }
                let response = try Self.send(server, route.method, route.path, body: route.body, headers: headers)
                #expect(response.status == 403, "\(route.method) \(route.path) with CSRF \(csrf ?? "none")")
                #expect(try response.json()["serverErrorCode"]?.stringValue == "ACCESS_DENIED")
            }
        }
        #expect(try Self.snapshot(server) == before)
        let read = try Self.send(server, "GET", "/admin/v1/containers", headers: [("Cookie", "cumulus_console=\(signedIn.secret)")])
        #expect(read.status == 200)
        let changed = try Self.send(
            server, "POST", "/admin/v1/containers/iCloud.com.example.Tests/users/alice/sign-out",
            headers: [("Cookie", "cumulus_console=\(signedIn.secret)"), ("X-CSRF-Token", signedIn.session.csrfToken)])
        #expect(changed.status == 200)
    }

    @Test func theRefusalListNamesEveryRoute() throws {
        let mounted = try ConsoleTestServer(createContainer: false).routes.filter { $0.pattern.hasPrefix("/admin/v1/") }.flatMap { route in
            route.methods.filter { $0 != .head }.map { (method: $0.rawValue, segments: route.pattern.split(separator: "/")) }
        }
        #expect(mounted.count >= Self.routes.count - 1)
        for route in mounted {
            let covered = Self.routes.contains { listed in
                let segments = (listed.path.split(separator: "?").first ?? "").split(separator: "/")
                return listed.method == route.method && segments.count == route.segments.count
                    && zip(segments, route.segments).allSatisfy { $0 == $1 || $1.hasPrefix(":") }
            }
            #expect(covered, "\(route.method) /\(route.segments.joined(separator: "/")) is missing from the refusal test")
        }
    }

    @Test func aTokenStopsWorkingAtTheRequestAfterItIsRevoked() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "script")
        let auth = [("Authorization", "Bearer " + token.text)]
        #expect(try Self.send(server, "GET", "/admin/v1/containers", headers: auth).status == 200)
        try server.store.revokeManagementToken(token.token.id)
        #expect(try Self.send(server, "GET", "/admin/v1/containers", headers: auth).status == 401)
        let other = try server.store.createManagementToken(for: "root", name: "other")
        try server.store.removeOperator("root")
        #expect(try Self.send(server, "GET", "/admin/v1/containers", headers: [("Authorization", "Bearer " + other.text)]).status == 401)
    }

    @Test func containersTokensKeysAndUsers() throws {
        let server = try Self.server()
        let auth = [("Authorization", "Bearer " + (try server.store.createManagementToken(for: "root", name: "t").text))]
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(server, method, "/admin/v1" + path, body: body, headers: auth)
            return (response.status, try response.json())
        }

        let (created, container) = try call("POST", "/containers", #"{"identifier":"iCloud.com.example.Fresh"}"#)
        #expect(created == 201)
        #expect(container["identifier"]?.stringValue == "iCloud.com.example.Fresh")
        #expect(container["environments"]?["development"]?["records"] == .integer(0))
        #expect(try call("POST", "/containers", #"{"identifier":"iCloud.com.example.Fresh"}"#).1["serverErrorCode"] == "EXISTS")
        let (badStatus, bad) = try call("POST", "/containers", #"{"identifier":"com.example.Nope"}"#)
        #expect(badStatus == 400 && bad["reason"]?.stringValue?.contains("iCloud.") == true)
        #expect(try call("POST", "/containers", #"{"identifier":7}"#).1["reason"] == "\"identifier\" must be a string")
        #expect(try call("POST", "/containers", "[1").0 == 400)
        _ = try server.store.database(server.container, .development, .public, as: .operator())
            .modify(
                ModifyRequest(operations: [RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("x")])])
            )
        let listed = try call("GET", "/containers").1["containers"]
        #expect(listed?.arrayValue?.map { $0["identifier"]?.stringValue } == ["iCloud.com.example.Fresh", "iCloud.com.example.Tests"])
        #expect(listed?.arrayValue?.last?["environments"]?["development"]?["records"] == .integer(1))
        #expect(try call("GET", "/containers/iCloud.com.example.Missing").0 == 404)

        let (tokenStatus, token) = try call(
            "POST", "/containers/iCloud.com.example.Tests/tokens",
            #"{"environment":"production","name":"web","allowedOrigins":["https://app.example.com"]}"#)
        #expect(tokenStatus == 201)
        let tokenValue = try #require(token["token"]?.stringValue)
        #expect(token["allowedOrigins"] == ["https://app.example.com"] && token["environment"] == "production")
        #expect(try call("POST", "/containers/iCloud.com.example.Tests/tokens", #"{"allowedOrigins":["not an origin"]}"#).0 == 400)
        #expect(try call("GET", "/containers/iCloud.com.example.Tests/tokens").1["tokens"]?.arrayValue?.count == 1)
        #expect(try call("DELETE", "/containers/iCloud.com.example.Fresh/tokens/\(tokenValue)").0 == 404)
        #expect(try call("DELETE", "/containers/iCloud.com.example.Tests/tokens/\(tokenValue)").0 == 200)
        #expect(try call("DELETE", "/tokens/\(tokenValue)").1["serverErrorCode"] == "NOT_FOUND")
        let other = try call("POST", "/containers/iCloud.com.example.Tests/tokens", "{}").1["token"]?.stringValue ?? ""
        #expect(try call("DELETE", "/tokens/\(other)").1["revoked"] == .string(other), "a token is revoked without naming its container")
        #expect(try server.store.apiToken(other) == nil)
        #expect(try server.store.apiToken(tokenValue) == nil)

        let (keyStatus, keyError) = try call(
            "POST", "/containers/iCloud.com.example.Tests/keys",
            #"{"publicKey":"-----BEGIN PUBLIC KEY-----\nAAAA\n-----END PUBLIC KEY-----"}"#)
        #expect(keyStatus == 400)
        #expect(keyError["reason"]?.stringValue?.contains("openssl ecparam") == true)
        #expect(try call("GET", "/containers/iCloud.com.example.Tests/keys").1["keys"] == [])

        let (userStatus, user) = try call(
            "POST", "/containers/iCloud.com.example.Tests/users",
            #"{"name":"bob","password":"a long passphrase","emailAddress":"bob@example.com"}"#)
        #expect(userStatus == 201 && user["name"] == "bob" && user["openSessions"] == .integer(0))
        #expect(try call("POST", "/containers/iCloud.com.example.Tests/users", #"{"name":"carl","password":"short"}"#).0 == 400)
        #expect(
            try call("GET", "/containers/iCloud.com.example.Tests/users?search=EXAMPLE.com").1["users"]?.arrayValue?.map { $0["name"] } == [
                "bob"
            ])
        _ = try server.store.signIn(server.container, .development, name: "bob", password: "a long passphrase")
        #expect(try call("POST", "/containers/iCloud.com.example.Tests/users/bob/sign-out").1["endedSessions"] == .integer(1))
        #expect(try call("POST", "/containers/iCloud.com.example.Tests/users/bob/password", #"{"password":"a new passphrase"}"#).0 == 200)
        #expect(throws: CloudStoreError.self) {
            try server.store.signIn(server.container, .development, name: "bob", password: "a long passphrase")
        }
        #expect(user["discoverable"] == false)
        #expect(
            try call("POST", "/containers/iCloud.com.example.Tests/users/bob/discoverable", #"{"discoverable":true}"#).1["discoverable"]
                == true)
        #expect(try server.store.user(named: "bob", in: server.container)?.isDiscoverable == true)
        #expect(try call("POST", "/containers/iCloud.com.example.Tests/users/bob/discoverable", #"{"discoverable":"yes"}"#).0 == 400)
        #expect(try call("DELETE", "/containers/iCloud.com.example.Tests/users/bob").0 == 200)
        #expect(try call("DELETE", "/containers/iCloud.com.example.Tests/users/bob").0 == 404)
    }

    /// A file posted for an ASSET field is stored as the API's uploads are, and its receipt saves
    /// it into a record; a request naming no field is refused.
    @Test func aFileIsUploadedForAnAssetFieldAndSavedByItsReceipt() throws {
        let server = try Self.server()
        let auth = [("Authorization", "Bearer " + (try server.store.createManagementToken(for: "root", name: "t").text))]
        let base = "/admin/v1/containers/iCloud.com.example.Tests/development/public/records"
        let uploaded = try Self.send(server, "POST", base + "/assets?recordType=Doc&field=file", body: "some bytes", headers: auth)
        #expect(uploaded.status == 200, "\(uploaded.text)")
        let answer = try UploadedAssetView(json: try uploaded.json())
        #expect(answer.size == 10 && !answer.receipt.isEmpty)
        let modify: JSONValue = [
            "operations": [
                ["operationType": "create", "record": ["recordName": "doc", "recordType": "Doc", "fields": ["file": answer.fieldValue]]]
            ]
        ]
        let saved = try Self.send(
            server, "POST", base + "/modify", body: String(decoding: modify.serialized(), as: UTF8.self), headers: auth)
        #expect(saved.status == 200)
        #expect(try saved.json()["records"]?[0]?["fields"]?["file"]?["value"]?["size"]?.int64Value(acceptingNumericString: true) == 10)
        let refused = try Self.send(server, "POST", base + "/assets?recordType=Doc", body: "x", headers: auth)
        #expect(refused.status == 400 && refused.text.contains("Name the record type and the ASSET field"))
    }

    /// `dryRun=true` answers what an import would change and changes nothing.
    @Test func aSchemaImportsDryRunPreviewsIt() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        let before = try server.store.exportSchema(server.container, .development)
        let response = try Self.send(
            server, "PUT", "/admin/v1/containers/iCloud.com.example.Tests/development/schema?dryRun=true",
            body: before + "\n RECORD TYPE Task (due TIMESTAMP QUERYABLE);\n", headers: [("Authorization", "Bearer " + token)])
        #expect(response.status == 200)
        let answer = try response.json()
        #expect(answer["dryRun"] == true)
        #expect(answer["added"] == ["add record type Task (1 field)", "add field Task.due TIMESTAMP", "add index QUERYABLE on Task.due"])
        #expect(answer["changed"] == [] && answer["removed"] == [])
        #expect(try server.store.exportSchema(server.container, .development) == before)
    }

    @Test func schemaRecordTypesFieldsIndexesAndZones() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        let base = "/admin/v1/containers/iCloud.com.example.Tests"
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(server, method, base + path, body: body, headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }

        let schema = try call("GET", "/development/schema").1
        let note = schema["recordTypes"]?.arrayValue?.first { $0["name"] == "Note" }
        #expect(note?["fields"]?.arrayValue?.first?["name"] == "___createTime" && note?["fields"]?.arrayValue?.first?["system"] == true)
        #expect(note?["fields"]?.arrayValue?.first { $0["name"] == "title" }?["indexes"] == ["QUERYABLE"])
        let text = try Self.send(server, "GET", base + "/development/schema?format=ckdb", headers: [("Authorization", "Bearer " + token)])
        #expect(text.header("Content-Type")?.hasPrefix("text/plain") == true)
        #expect(text.text == (try server.store.exportSchema(server.container, .development)))

        let (badStatus, bad) = try call("PUT", "/development/schema", "DEFINE SCHEMA\n  RECORD TYPE Note (\n    n BADTYPE\n  );\n")
        #expect(badStatus == 400 && bad["reason"]?.stringValue?.contains("line 3, column 7") == true)
        #expect(try call("PUT", "/production/schema", "DEFINE SCHEMA\n").0 == 400)
        #expect(
            try call("POST", "/development/schema/validate", "DEFINE SCHEMA\n RECORD TYPE A (x STRING);\n").1["recordTypes"] == .integer(1))

        #expect(try call("POST", "/development/record-types", #"{"name":"Task"}"#).0 == 201)
        #expect(try call("POST", "/development/record-types", #"{"name":"Task"}"#).1["serverErrorCode"] == "EXISTS")
        #expect(try call("POST", "/development/record-types", #"{"name":"9bad"}"#).0 == 400)
        #expect(try call("POST", "/production/record-types", #"{"name":"Task"}"#).0 == 400)
        let (fieldStatus, task) = try call(
            "POST", "/development/record-types/Task/fields", #"{"name":"due","type":"TIMESTAMP","indexes":["QUERYABLE","SORTABLE"]}"#)
        #expect(fieldStatus == 201)
        #expect(task["fields"]?.arrayValue?.first { $0["name"] == "due" }?["indexes"] == ["QUERYABLE", "SORTABLE"])
        #expect(
            try call("POST", "/development/record-types/Task/fields", #"{"name":"blob","type":"BYTES","indexes":["QUERYABLE"]}"#).0 == 400)
        #expect(try call("POST", "/development/record-types/Task/fields", #"{"name":"x","type":"NOPE"}"#).0 == 400)
        #expect(try call("POST", "/development/record-types/Missing/fields", #"{"name":"x","type":"STRING"}"#).0 == 404)
        let (indexStatus, indexed) = try call(
            "PUT", "/development/record-types/Task/fields/___modTime/indexes", #"{"indexes":["SORTABLE"]}"#)
        #expect(indexStatus == 200)
        #expect(indexed["fields"]?.arrayValue?.first { $0["name"] == "___modTime" }?["indexes"] == ["SORTABLE"])
        #expect(
            try server.store.schema(server.container, .development).recordType("Task")?.field("due")?.indexes == [.queryable, .sortable])

        let zones = try call("GET", "/development/private/zones?user=alice").1
        #expect(zones["zones"]?.arrayValue?.map { $0["zoneName"] } == ["_defaultZone", "Work"])
        #expect(try call("GET", "/development/private/zones").0 == 400)
        #expect(try call("GET", "/development/elsewhere/zones").0 == 400)
        #expect(try call("POST", "/development/private/zones", #"{"zoneName":"Play","user":"alice"}"#).0 == 201)
        #expect(try call("POST", "/development/public/zones", #"{"zoneName":"Play"}"#).0 == 400)
        #expect(try call("DELETE", "/development/private/zones/Work?user=alice").1["deleted"] == true)
        #expect(
            try call("GET", "/development/private/zones?user=alice").1["zones"]?.arrayValue?.map { $0["zoneName"] } == [
                "_defaultZone", "Play",
            ])
    }

    @Test func recordsQueriedChangedExportedAndAMissingIndexNamed() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        let base = "/admin/v1/containers/iCloud.com.example.Tests/development"
        func call(_ path: String, _ body: String) throws -> (Int, JSONValue) {
            let response = try Self.send(server, "POST", base + path, body: body, headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }

        let (created, saved) = try call(
            "/public/records/modify",
            #"""
            {"operations":[
              {"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{"title":{"value":"=HYPERLINK(\"x\")"}}}},
              {"operationType":"create","record":{"recordName":"b","recordType":"Note","fields":{"title":{"value":"plain, \"quoted\""}}}}]}
            """#)
        #expect(created == 200)
        let tag = try #require(saved["records"]?.arrayValue?.first?["recordChangeTag"]?.stringValue)
        let query =
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"title","comparator":"BEGINS_WITH","fieldValue":{"value":"plain"}}]}}"#
        #expect(try call("/public/records/query", query).1["records"]?.arrayValue?.map { $0["recordName"] } == ["b"])
        #expect(
            try call("/public/records/lookup", #"{"records":[{"recordName":"a"},{"recordName":"zz"}]}"#).1["records"]?.arrayValue?
                .map { $0["serverErrorCode"] ?? $0["recordName"] } == ["a", "NOT_FOUND"])

        // An update with a stale change tag is a conflict carrying the server's record.
        let update =
            #"{"operationType":"update","record":{"recordName":"a","recordType":"Note","recordChangeTag":"TAG","fields":{"title":{"value":"new"}}}}"#
        #expect(
            try call("/public/records/modify", #"{"operations":[\#(update.replacingOccurrences(of: "TAG", with: tag))]}"#).1["records"]?
                .arrayValue?.first?["fields"]?["title"]?["value"] == "new")
        let conflict = try call("/public/records/modify", #"{"operations":[\#(update.replacingOccurrences(of: "TAG", with: tag))]}"#).1
        #expect(conflict["records"]?.arrayValue?.first?["serverErrorCode"] == "CONFLICT")

        // A filter on a field without its index names the index to add.
        let (missingStatus, missing) = try call(
            "/public/records/query",
            #"{"query":{"recordType":"Note","filterBy":[{"fieldName":"___modTime","comparator":"GREATER_THAN","fieldValue":{"value":0}}]}}"#
        )
        #expect(missingStatus == 400)
        #expect(missing["missingIndex"] == ["recordType": "Note", "field": "___modTime", "index": "QUERYABLE"])

        // Export: CSV quotes every cell as RFC 4180 and defuses formulas; JSON carries the records.
        let everything = #"{"query":{"recordType":"Note"}}"#
        let csv = try Self.send(
            server, "POST", base + "/public/records/export?format=csv", body: everything, headers: [("Authorization", "Bearer " + token)])
        #expect(csv.status == 200 && csv.header("Content-Type")?.hasPrefix("text/csv") == true)
        let lines = csv.text.split(separator: "\r\n").map(String.init)
        #expect(lines.first?.hasPrefix(#""recordName","recordType","#) == true)
        #expect(lines.contains { $0.hasPrefix(#""b","Note","#) && $0.contains(#""plain, ""quoted""""#) })
        let json = try Self.send(
            server, "POST", base + "/public/records/export?format=json", body: everything, headers: [("Authorization", "Bearer " + token)])
        #expect(try json.json()["records"]?.arrayValue?.count == 2)
        #expect(try call("/public/records/export?format=xml", everything).0 == 400)

        // A private database needs its user, in development; production keeps it to the user.
        #expect(try call("/private/records/query", everything).0 == 400)
        #expect(
            try call(
                "/private/records/modify?user=alice",
                #"{"operations":[{"operationType":"create","record":{"recordName":"p","recordType":"Note","fields":{}}}]}"#
            ).0 == 200)
        #expect(
            try call("/private/records/lookup?user=alice", #"{"records":[{"recordName":"p"}]}"#).1["records"]?.arrayValue?.first?[
                "recordName"] == "p")
        let production = try Self.send(
            server, "POST", "/admin/v1/containers/iCloud.com.example.Tests/production/private/records/lookup?user=alice",
            body: #"{"records":[{"recordName":"p"}]}"#, headers: [("Authorization", "Bearer " + token)])
        #expect(production.status == 403)
        #expect(try production.json()["serverErrorCode"] == "ACCESS_DENIED")
    }

    /// Review N9: the change-feed inspector keeps production private contents to their users;
    /// issue 39: it shows their metadata (positions, kinds, types), never a record's name.
    @Test func theChangeFeedInspectorKeepsProductionPrivateChangesToTheirUsers() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        let alice = try #require(try server.store.user(named: "alice", in: server.container)).userRecordName
        _ = try server.store.deploySchema(server.container, deployedBy: "test")
        try server.store.database(server.container, .production, .private, as: .user(alice)).create(
            "Note", "2026-11-28 therapy session notes")
        try server.store.database(server.container, .development, .private, as: .user(alice)).create("Note", "a development note")
        try server.store.database(server.container, .production, .public, as: .operator()).create("Note", "a public note")
        func changes(_ environment: String, _ database: String) throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, "GET",
                "/admin/v1/containers/iCloud.com.example.Tests/\(environment)/\(database)/zones/_defaultZone/changes?user=alice",
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        let (status, metadata) = try changes("production", "private")
        #expect(status == 200 && metadata["contentsHidden"] == true)
        #expect(metadata["entries"]?.arrayValue?.map { $0["recordName"] } == [""])
        #expect(metadata["entries"]?.arrayValue?.map { $0["kind"] } == ["created"])
        #expect(!String(describing: metadata).contains("therapy"))
        let searched = try Self.send(
            server, "GET",
            "/admin/v1/containers/iCloud.com.example.Tests/production/private/zones/_defaultZone/changes?user=alice&recordName=2026",
            headers: [("Authorization", "Bearer " + token)])
        #expect(searched.status == 403)
        #expect(try searched.json()["serverErrorCode"] == "ACCESS_DENIED")
        #expect(try changes("development", "private").1["entries"]?.arrayValue?.map { $0["recordName"] } == ["a development note"])
        #expect(try changes("production", "public").1["entries"]?.arrayValue?.map { $0["recordName"] } == ["a public note"])
    }

    @Test func managementTokensAreCreatedListedAndRevoked() throws {
        let server = try Self.server()
        let first = try server.store.createManagementToken(for: "root", name: "first").text
        func call(_ method: String, _ path: String, _ body: String = "", token: String) throws -> (Int, JSONValue) {
            let response = try Self.send(server, method, "/admin/v1" + path, body: body, headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        // A management token cannot mint another (review N14): a leaked one would outlive its revocation.
        let (minted, refusal) = try call("POST", "/management-tokens", #"{"name":"persistence"}"#, token: first)
        #expect(minted == 403 && refusal["serverErrorCode"] == "ACCESS_DENIED")
        #expect(refusal["reason"]?.stringValue?.hasPrefix("A management token cannot create management tokens") == true)
        #expect(try server.store.managementTokens().map(\.name) == ["first"])
        #expect(try server.store.auditEntries(AuditFilter(action: "management-token.")).isEmpty, "a refused change is not audited")
        // A console session can, for its own operator.
        let signedIn = try server.store.signInOperator("root", password: "operator password", clientAddress: nil)
        let made = try Self.send(
            server, "POST", "/admin/v1/management-tokens", body: #"{"name":"laptop"}"#,
            headers: [("Cookie", "cumulus_console=\(signedIn.secret)"), ("X-CSRF-Token", signedIn.session.csrfToken)])
        let (status, created) = (made.status, try made.json())
        #expect(status == 201 && created["operator"] == "root" && created["name"] == "laptop")
        let second = try #require(created["token"]?.stringValue)
        let id = try #require(created["id"]?.stringValue)
        #expect(second.hasPrefix("cumulus_mt_" + id + "_"))
        let listed = try call("GET", "/management-tokens", token: second).1["managementTokens"]?.arrayValue ?? []
        #expect(Set(listed.compactMap { $0["name"]?.stringValue }) == ["first", "laptop"])
        #expect(!listed.contains { $0["token"] != nil }, "a listed token never carries its secret")
        // The token revokes itself; the very next request is refused.
        #expect(try call("DELETE", "/management-tokens/\(id)", token: second).0 == 200)
        #expect(try call("GET", "/management-tokens", token: second).0 == 401)
        #expect(try call("DELETE", "/management-tokens/\(id)", token: first).0 == 404)
    }

    @Test func theSchemaIsDeployedAndDevelopmentResetAsAScriptAsks() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests" + path, body: body,
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        let difference = try call("GET", "/deployment").1
        #expect(difference["canDeploy"] == true)
        #expect(difference["changes"]?.arrayValue?.first?["description"] == "add record type Note (1 field)")
        let (status, deployment) = try call("POST", "/deployment")
        #expect(status == 201)
        #expect(deployment["deployedBy"]?.stringValue == "root (token \(token.split(separator: "_")[2]))")
        #expect(try call("POST", "/deployment").1["reason"] == "Production's schema is already development's: there is nothing to deploy")
        #expect(try call("GET", "/deployments").1["deployments"]?.arrayValue?.count == 1)
        #expect(try server.store.schema(server.container, .production).recordType("Note") != nil)

        _ = try server.store.database(server.container, .development, .public, as: .operator())
            .modify(
                ModifyRequest(operations: [RecordOperation(.create, recordName: "n1", recordType: "Note", fields: ["title": .string("x")])])
            )
        _ = try server.store.addUser(server.container, name: "dana", password: "a long passphrase")
        let session = try server.store.signIn(server.container, .development, name: "dana", password: "a long passphrase").webAuthToken
        #expect(try call("GET", "/reset").1 == ["records": 1, "zones": 1, "recordTypes": 1, "productionRecordTypes": 1, "sessions": 1])
        let (wrongStatus, wrong) = try call("POST", "/reset", #"{"confirm":"iCloud.com.example.Other"}"#)
        #expect(
            wrongStatus == 400 && wrong["reason"] == "To reset development, type the container identifier iCloud.com.example.Tests exactly")
        #expect(try server.store.usage(of: server.container)[.development]?.records == 1, "a refused reset deletes nothing")
        let (resetStatus, reset) = try call("POST", "/reset", #"{"confirm":"iCloud.com.example.Tests"}"#)
        #expect(resetStatus == 200 && reset["deleted"]?["records"] == 1)
        #expect(try server.store.usage(of: server.container)[.development]?.records == 0)
        #expect(try call("GET", "/reset").1 == ["records": 0, "zones": 0, "recordTypes": 1, "productionRecordTypes": 1, "sessions": 0])
        #expect(throws: CloudStoreError.authenticationRequired("The session ended when its environment was reset; sign in again")) {
            try server.store.session(forWebAuthToken: session, in: server.container, .development)
        }
    }

    @Test func everyChangeJoinsTheAuditTrailWithWhoMadeIt() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t")
        let auth = [("Authorization", "Bearer " + token.text)]
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(server, method, "/admin/v1" + path, body: body, headers: auth)
            return (response.status, try response.json())
        }
        let base = "/containers/iCloud.com.example.Tests"
        #expect(try call("POST", base + "/users", #"{"name":"zed","password":"long enough"}"#).0 == 201)
        #expect(
            try call(
                "POST", base + "/development/public/records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{}}},{"operationType":"delete","record":{"recordName":"missing"}}]}"#
            ).0 == 200)
        #expect(try call("POST", base + "/development/record-types", #"{"name":"Task"}"#).0 == 201)
        #expect(try call("POST", base + "/users", #"{"name":"zed","password":"long enough"}"#).0 == 409, "a refused change is not audited")
        #expect(try call("GET", base + "/users").0 == 200, "reading is not audited")

        let trail = try call("GET", "/audit").1["entries"]?.arrayValue ?? []
        #expect(trail.map { $0["action"]?.stringValue ?? "" } == ["schema.record-type.create", "record.create", "user.add"])
        #expect(trail.allSatisfy { $0["actor"]?.stringValue == "root (token \(token.token.id))" && $0["operator"] == "root" })
        #expect(trail[1]["target"] == "public _defaultZone/n1" && trail[1]["container"] == "iCloud.com.example.Tests")
        #expect(try call("GET", "/audit?action=record.").1["entries"]?.arrayValue?.count == 1)
        #expect(try call("GET", "/audit?operator=someone-else").1["entries"] == [])
        let page = try call("GET", "/audit?limit=2").1
        let next = try #require(page["next"]?.stringValue)
        #expect(try call("GET", "/audit?limit=2&before=\(next)").1["entries"]?.arrayValue?.map { $0["action"] } == ["user.add"])
        #expect(try call("GET", "/audit?before=nope").0 == 400)
    }

    @Test func sharesAreListedAndTheirParticipantsRemoved() throws {
        let server = try Self.server()
        let store = server.store
        let alice = try #require(try store.user(named: "alice", in: server.container)).userRecordName
        let bob = try store.addUser(server.container, name: "bob", password: "a long passphrase").userRecordName
        let owner = try store.database(server.container, .development, .private, as: .user(alice))
        _ = try owner.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "trip", recordType: "Note"),
                    RecordOperation(
                        .create, recordName: "share-trip", recordType: Share.recordType,
                        share: ShareChange(
                            rootRecordName: "trip",
                            participants: [
                                .init(userRecordName: bob, permission: .readWrite),
                                .init(emailAddress: "carol@example.com", permission: .readOnly),
                            ])),
                ], zoneName: "Work"))
        let share = try #require(try store.shares(server.container, .development).first)
        _ = try store.acceptShares([ShareLookup(shortGUID: share.shortGUID)], server.container, .development, as: .user(bob))
        let shared = try store.database(server.container, .development, .shared, as: .user(bob)).reaching(owner: alice)
        #expect(try shared.lookup([RecordLookup("trip")], zoneName: "Work").first?.record != nil)

        let token = try store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String) throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests" + path,
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        let listed = try call("GET", "/development/shares").1["shares"]?[0]
        #expect(listed?["ownerName"] == "alice" && listed?["zoneName"] == "Work" && listed?["rootRecordName"] == "trip")
        #expect(listed?["shortGUID"] == .string(share.shortGUID) && listed?["publicPermission"] == "NONE")
        // An invitation by address that no one accepted is listed by its address alone.
        #expect(
            listed?["participants"] == [
                [
                    "userRecordName": .string(bob), "name": "bob", "permission": "READ_WRITE", "type": "USER",
                    "acceptanceStatus": "ACCEPTED",
                ],
                ["emailAddress": "carol@example.com", "permission": "READ_ONLY", "type": "USER", "acceptanceStatus": "INVITED"],
            ])
        // Production belongs to its users: the operator cannot change a share there.
        #expect(try call("DELETE", "/production/shares/alice/Work/share-trip/participants/bob").0 == 403)
        #expect(try call("DELETE", "/development/shares/alice/Work/share-trip/participants/carol").0 == 404)
        let (status, removed) = try call("DELETE", "/development/shares/alice/Work/share-trip/participants/bob")
        #expect(status == 200 && removed["removed"] == .string(bob))
        #expect(
            try shared.lookup([RecordLookup("trip")], zoneName: "Work").first?.error
                == .zoneNotFound(ZoneID(zoneName: "Work", ownerRecordName: alice)))
        // Bob is removed; the pending invitation stays as it was.
        let after = try call("GET", "/development/shares").1["shares"]?[0]?["participants"]
        #expect(after?[0]?["emailAddress"] == "carol@example.com" && after?[0]?["acceptanceStatus"] == "INVITED")
        #expect(after?[1]?["userRecordName"] == .string(bob) && after?[1]?["acceptanceStatus"] == "REMOVED")
        #expect(try call("DELETE", "/development/shares/alice/Work/share-trip").0 == 200)
        #expect(try call("GET", "/development/shares").1["shares"] == [])
        #expect(try call("DELETE", "/development/shares/alice/Work/share-trip").0 == 404)
        let trail = try Self.send(server, "GET", "/admin/v1/audit?action=share.", headers: [("Authorization", "Bearer " + token)]).json()
        #expect(trail["entries"]?.arrayValue?.map { $0["action"]?.stringValue ?? "" } == ["share.delete", "share.participant.remove"])
    }

    /// A request with two faults, an unknown user and a malformed environment, is answered for the
    /// missing user (404) first, as these routes answered before their inputs were typed; each
    /// fault alone keeps its own answer.
    @Test func anUnknownUserIsAnsweredBeforeAMalformedEnvironment() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        func status(_ method: String, _ path: String) throws -> Int {
            try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests" + path, headers: [("Authorization", "Bearer " + token)]
            ).status
        }
        #expect(try status("GET", "/staging/push-tokens?user=nobody") == 404)
        #expect(try status("GET", "/staging/push-tokens?user=alice") == 400)
        #expect(try status("GET", "/staging/push-tokens") == 400)
        #expect(try status("DELETE", "/staging/shares/nobody/Work/share-trip") == 404)
        #expect(try status("DELETE", "/staging/shares/alice/Work/share-trip") == 400)
        #expect(try status("DELETE", "/staging/shares/nobody/Work/share-trip/participants/alice") == 404)
        #expect(try status("DELETE", "/staging/shares/alice/Work/share-trip/participants/nobody") == 404)
        #expect(try status("DELETE", "/staging/shares/alice/Work/share-trip/participants/alice") == 400)
        // A missing container is answered before everything else.
        let missing = try Self.send(
            server, "GET", "/admin/v1/containers/iCloud.com.example.Missing/staging/push-tokens?user=nobody",
            headers: [("Authorization", "Bearer " + token)])
        #expect(missing.status == 404)
    }

    /// Push tokens are listed and revoked by an operator, in their own container and environment
    /// only; a revoked token's courier is closed, and the revocation joins the audit trail.
    @Test func pushTokensAreListedAndRevokedInTheirOwnContainerOnly() throws {
        let server = try Self.server()
        let store = server.store
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try store.createContainer(other)
        let stranger = try store.addUser(other, name: "stranger", password: "a long passphrase")
        let theirs = try store.createPushToken(other, .development, apnsEnvironment: "development", caller: .user(stranger.userRecordName))

        let token = try store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String) throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests" + path,
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        let (status, listed) = try call("GET", "/development/push-tokens")
        #expect(status == 200)
        let entry = try #require(listed["pushTokens"]?.arrayValue?.first)
        #expect(listed["pushTokens"]?.arrayValue?.count == 1, "the other container's token is not listed here")
        #expect(entry["id"] == .string(Self.alicePushTokenID) && entry["userName"] == "alice" && entry["token"] == "alicedev…")
        #expect(
            entry["created"]?.int64Value(acceptingNumericString: false) != nil
                && entry["lastUsed"]?.int64Value(acceptingNumericString: false) != nil)
        #expect(
            !(try call("GET", "/development/push-tokens").1.serialized().contains(Array(Self.alicePushToken.utf8))),
            "the token itself is never shown")
        #expect(try call("GET", "/development/push-tokens?user=alice").1["pushTokens"]?.arrayValue?.count == 1)
        #expect(try call("GET", "/development/push-tokens?user=nobody").0 == 404)
        #expect(try call("GET", "/production/push-tokens").1["pushTokens"] == [])

        // Another container's token, or this one's in another environment, is not found here.
        #expect(try call("DELETE", "/development/push-tokens/" + theirs.id).0 == 404)
        #expect(try store.pushToken(theirs.token) != nil)
        #expect(try call("DELETE", "/production/push-tokens/" + Self.alicePushTokenID).0 == 404)
        #expect(try store.pushToken(Self.alicePushToken) != nil)

        let (revoked, answer) = try call("DELETE", "/development/push-tokens/" + Self.alicePushTokenID)
        #expect(revoked == 200 && answer["revoked"] == true)
        #expect(try store.pushToken(Self.alicePushToken) == nil)
        #expect(try call("DELETE", "/development/push-tokens/" + Self.alicePushTokenID).0 == 404)
        let trail = try Self.send(server, "GET", "/admin/v1/audit?action=pushToken.", headers: [("Authorization", "Bearer " + token)])
            .json()
        #expect(trail["entries"]?.arrayValue?.map { $0["target"]?.stringValue ?? "" } == [Self.alicePushTokenID])
    }

    @Test func rolesGrantsAndTheSimulatorAsAScriptUsesThem() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests" + path, body: body,
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        func simulate(_ subject: String) throws -> JSONValue {
            try call("POST", "/development/security/simulate", #"{"subject":"\#(subject)","permission":"CREATE","recordType":"Note"}"#).1
        }
        #expect(try simulate("alice")["allowed"] == false)
        #expect(try call("POST", "/development/security/roles", #"{"name":"Editor"}"#).0 == 201)
        let (status, grants) = try call(
            "PUT", "/development/security/record-types/Note/grants",
            #"{"grants":[{"role":"Editor","permissions":["create","READ"]},{"role":"_world","permissions":["READ"]}]}"#)
        #expect(
            status == 200
                && grants["grants"] == [
                    ["role": "Editor", "permissions": ["READ", "CREATE"]], ["role": "_world", "permissions": ["READ"]],
                ])
        #expect(try call("PUT", "/development/users/alice/roles", #"{"roles":["Editor"]}"#).1["roles"] == ["Editor"])
        let decision = try simulate("alice")
        #expect(decision["allowed"] == true && decision["rule"] == #"GRANT CREATE TO "Editor" (the user holds the role)"#)
        #expect(try simulate("signedIn")["allowed"] == false)
        let security = try call("GET", "/development/security").1
        #expect(security["roles"] == ["Editor"] && security["holders"]?.arrayValue?.first?["name"] == "alice")
        #expect(try call("PUT", "/production/security/record-types/Note/grants", #"{"grants":[]}"#).0 == 400)
        #expect(try call("POST", "/development/security/simulate", #"{"subject":"world","permission":"FLY","recordType":"Note"}"#).0 == 400)
        #expect(try call("DELETE", "/development/security/roles/Editor").0 == 200)
        #expect(try simulate("alice")["allowed"] == false)
    }

    @Test func theRequestLogIsReadFilteredExportedAndTailed() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        let auth = [("Authorization", "Bearer " + token)]
        for (index, status) in [200, 404, 200].enumerated() {
            server.store.requestLog.record(
                RequestLogEntry(
                    time: 1_800_000_000_000 + Int64(index), container: "iCloud.com.example.Tests", environment: "development",
                    database: "public",
                    operation: index == 1 ? "records/lookup" : "records/query", user: nil, clientAddress: "127.0.0.1", status: status,
                    serverErrorCode: status == 404 ? "NOT_FOUND" : nil, durationMicroseconds: 5, bytesIn: 1, bytesOut: 2,
                    requestID: "r\(index)"))
        }
        let base = "/admin/v1/containers/iCloud.com.example.Tests/logs"
        let all = try Self.send(server, "GET", base, headers: auth).json()
        #expect(all["entries"]?.arrayValue?.map { $0["requestID"] } == ["r2", "r1", "r0"])
        let errors = try Self.send(server, "GET", base + "?errors=1", headers: auth).json()
        #expect(errors["entries"]?.arrayValue?.map { $0["serverErrorCode"] } == ["NOT_FOUND"])
        let page = try Self.send(server, "GET", base + "?limit=2&operation=records/query", headers: auth).json()
        #expect(page["entries"]?.arrayValue?.count == 2 && page["next"] != nil)
        #expect(try Self.send(server, "GET", base + "?from=yesterday", headers: auth).status == 400)
        let csv = try Self.send(server, "GET", base + "/export?format=csv", headers: auth)
        #expect(csv.header("Content-Type")?.hasPrefix("text/csv") == true && csv.text.split(separator: "\r\n").count == 4)
        let lines = try Self.send(server, "GET", base + "/export?format=jsonl&errors=1", headers: auth)
        #expect(lines.text.split(separator: "\n").count == 1 && lines.text.contains(#""requestID":"r1""#))
        #expect(try Self.send(server, "GET", base + "/export?format=xml", headers: auth).status == 400)
    }

    @Test func limitsAreReadAndSetByPresetOrValueAndUsageIsCharted() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests/development" + path, body: body,
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        let (status, standard) = try call("GET", "/limits")
        #expect(status == 200 && standard["preset"] == "standard" && standard["requestsPerSecond"]?.doubleValue == 5_000)
        let (_, cloudKit) = try call("PUT", "/limits", #"{"preset":"cloudkit"}"#)
        #expect(cloudKit["preset"] == "cloudkit" && cloudKit["requestsPerSecond"]?.doubleValue == 40 && cloudKit["burst"] == 40)
        let (_, custom) = try call(
            "PUT", "/limits", #"{"requestsPerSecond":"12.5","storageBytes":1000000,"transferBytesPerMonth":"2,000,000"}"#)
        #expect(custom["preset"] == .null && custom["requestsPerSecond"]?.doubleValue == 12.5 && custom["burst"] == 40)
        #expect(custom["storageBytes"] == 1_000_000 && custom["transferBytesPerMonth"] == 2_000_000)
        #expect(try server.store.limits(of: server.container, .development).storageBytes == 1_000_000)
        let (_, removed) = try call("PUT", "/limits", #"{"storageBytes":null,"transferBytesPerMonth":""}"#)
        #expect(
            removed["storageBytes"] == .null && removed["transferBytesPerMonth"] == .null
                && removed["requestsPerSecond"]?.doubleValue == 12.5)
        for bad in [
            #"{"preset":"unlimited"}"#, #"{"requestsPerSecond":0}"#, #"{"burst":1.5}"#, #"{"storageBytes":"lots"}"#, #"{"burst":-1}"#,
        ] {
            let (status, body) = try call("PUT", "/limits", bad)
            #expect(status == 400 && body["serverErrorCode"] == "BAD_REQUEST", "\(bad)")
        }
        #expect(try server.store.limits(of: server.container, .development).requestsPerSecond == 12.5, "a refused change changes nothing")
        #expect(try server.store.auditEntries(AuditFilter(action: "limits.set")).count == 3)
        server.store.requestLog.record(
            RequestLogEntry(
                time: server.store.configuration.clock(), container: "iCloud.com.example.Tests", environment: "development",
                database: "public",
                operation: "records/query", user: nil, clientAddress: "127.0.0.1", status: 500, serverErrorCode: "INTERNAL_ERROR",
                durationMicroseconds: 2_000, bytesIn: 100, bytesOut: 23, requestID: "r"))
        let (_, usage) = try call("GET", "/usage?range=week")
        let points = try #require(usage["points"]?.arrayValue)
        #expect(points.count == 168 && usage["bucketSeconds"] == 3_600)
        #expect(points.last?["requests"] == 1 && points.last?["errors"] == 1 && points.last?["bytesIn"] == 100)
        #expect(usage["transferThisMonth"] == 123 && usage["limits"]?["requestsPerSecond"]?.doubleValue == 12.5)
        #expect(try call("GET", "/usage?range=year").0 == 400)
    }

    @Test func theLiveTailStreamsNewCallsThatPassItsFilter() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        let client = try RawClient(port: server.port)
        try client.send(
            "GET /admin/v1/containers/iCloud.com.example.Tests/logs/tail?errors=1 HTTP/1.1\r\nHost: test\r\nAuthorization: Bearer \(token)\r\n\r\n"
        )
        let head = try client.readHead()
        #expect(head.status == 200 && head.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        for (name, status) in [("r-ok", 200), ("r-error", 503)] {
            server.store.requestLog.record(
                RequestLogEntry(
                    time: 1_800_000_000_000, container: "iCloud.com.example.Tests", environment: "development", database: "public",
                    operation: "records/query", user: nil, clientAddress: "127.0.0.1", status: status,
                    serverErrorCode: status == 200 ? nil : "TRY_AGAIN_LATER",
                    durationMicroseconds: 5, bytesIn: 1, bytesOut: 2, requestID: name))
        }
        try server.store.requestLog.flush()
        var text = ""
        while !text.contains("\n\n"), let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        #expect(text.hasPrefix("id: 2\nevent: request\ndata: {"), "the second entry stored, with its id")
        #expect(text.contains(#""requestID":"r-error""#) && !text.contains("r-ok"), "\(text)")
        client.close()
        // Without a credential the tail is refused, like every route.
        let refused = try Self.send(server, "GET", "/admin/v1/containers/iCloud.com.example.Tests/logs/tail")
        #expect(refused.status == 401)
    }

    @Test func theTrashHistoryAndRestorePointsAsAScriptUsesThem() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            let response = try Self.send(
                server, method, "/admin/v1/containers/iCloud.com.example.Tests/development" + path, body: body,
                headers: [("Authorization", "Bearer " + token)])
            return (response.status, try response.json())
        }
        let alice = try #require(try server.store.user(named: "alice", in: server.container)).userRecordName
        let work = try server.store.database(server.container, .development, .private, as: .user(alice))
        _ = try work.modify(
            ModifyRequest(
                operations: [RecordOperation(.create, recordName: "w1", recordType: "Note", fields: ["title": .string("one")])],
                zoneName: "Work"))
        _ = try work.modify(
            ModifyRequest(
                operations: [RecordOperation(.forceUpdate, recordName: "w1", recordType: "Note", fields: ["title": .string("two")])],
                zoneName: "Work"))
        let (historyStatus, history) = try call("GET", "/private/history?user=alice&zone=Work&record=w1")
        #expect(historyStatus == 200)
        #expect(history["versions"]?[0]?["changedFields"] == ["title"] && history["versions"]?[0]?["modifier"]?.stringValue == alice)
        #expect(history["current"]?["fields"]?["title"]?["value"] == "two")
        let version = try #require(history["versions"]?[0]?["version"]?.int64Value(acceptingNumericString: false))
        let refused = try call(
            "POST", "/private/history/revert?user=alice", #"{"zone":"Work","record":"w1","version":\#(version),"recordChangeTag":"old"}"#)
        #expect(refused.0 == 409, "a revert is a conflict-checked save: \(refused.1)")
        let (revertStatus, reverted) = try call(
            "POST", "/private/history/revert?user=alice", #"{"zone":"Work","record":"w1","version":\#(version)}"#)
        #expect(revertStatus == 200 && reverted["record"]?["fields"]?["title"]?["value"] == "one")

        _ = try work.modifyZones([ZoneOperation(.delete, zoneName: "Work")])
        let trash = try call("GET", "/private/trash?user=alice").1
        #expect(trash["zones"]?[0]?["zoneName"] == "Work" && trash["records"]?.arrayValue?.count == 1)
        let plan = try call("POST", "/private/trash/restore?user=alice", #"{"zone":"Work"}"#).1
        #expect(plan["restored"] == 1 && plan["zonesRestored"] == ["Work"])
        #expect(try work.lookup([RecordLookup("w1")], zoneName: "Work").first?.record?.fields["title"] == .string("one"))

        let (dryStatus, dry) = try call(
            "POST", "/private/restore-point?user=alice", #"{"zone":"Work","at":"1970-01-01T00:00:00Z","dryRun":true}"#)
        #expect(dryStatus == 200 && dry["removed"] == 1 && dry["dryRun"] == true && dry["sample"] == ["Work/w1"])
        #expect(try call("POST", "/private/restore-point?user=alice", #"{"at":"0"}"#).0 == 400, "a zone or a type is named")

        #expect(try call("GET", "/history-retention").1["default"] == true)
        let (setStatus, set) = try call("PUT", "/history-retention", #"{"seconds":604800}"#)
        #expect(setStatus == 200 && set["seconds"] == 604_800 && set["default"] == false)
        #expect(try call("PUT", "/history-retention", #"{"seconds":5}"#).0 == 400)
        #expect(try call("PUT", "/history-retention", #"{"seconds":null}"#).1["default"] == true)
        let actions = try server.store.auditEntries(AuditFilter(limit: 10)).map(\.action)
        // The operator's reads of alice's private records (the trash, the record's history) are audited too.
        #expect(actions == ["history.retention", "history.retention", "trash.restore", "record.read", "history.revert", "record.read"])
    }
}
