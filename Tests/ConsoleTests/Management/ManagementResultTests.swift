import CloudKitWire
import CloudStore
import Console
import HTTPServer
import TestSupport
import Testing

/// Each typed admin result reads back the management API's JSON and writes it again byte for
/// byte: the one encoding is what the API sends, and the one decoding is what the remote command
/// line reads.
@Suite struct ManagementResultTests {
    /// A store with a user, a zone, a push token, a schema with a role, an API token, a deployment
    /// and a logged call with per-record failures.
    private static func seeded() throws -> (ConsoleTestServer, InProcessResponder) {
        let server = try ConsoleTestServer()
        let alice = try server.store.addUser(
            server.container, name: "alice", password: "a long passphrase", emailAddress: "alice@example.com")
        try server.store.registerPushToken(
            "alicedevicetoken", server.container, .development, apnsEnvironment: "development", caller: .user(alice.userRecordName))
        _ = try server.store.database(server.container, .development, .private, as: .user(alice.userRecordName))
            .modifyZones([ZoneOperation(.create, zoneName: "Work")])
        try server.store.importSchema(
            "DEFINE SCHEMA\n CREATE ROLE Editor;\n RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT WRITE TO Editor);\n",
            into: server.container, .development)
        try server.store.addOperator("root", password: "operator password")
        _ = try server.store.createManagementToken(for: "root", name: "script")
        try server.store.setRoles(["Editor"], of: alice.userRecordName, in: server.container, .development)
        var call = RequestLogEntry(
            time: 1_800_000_000_000, container: server.container.rawValue, environment: "development", database: "private",
            operation: "records/modify", user: alice.userRecordName, clientAddress: "192.0.2.1", status: 200, serverErrorCode: nil,
            durationMicroseconds: 900, bytesIn: 10, bytesOut: 20, requestID: "req-modify")
        call.credential = .serverKey("deploy")
        call.userAgent = "curl/8"
        call.recordTypes = "Note"
        call.zones = "Work,_defaultZone"
        call.results = 3
        call.resultErrors = ["CONFLICT": 1, "ACCESS_DENIED": 1]
        call.reason = "CONFLICT: record changed"
        server.store.requestLog.record(call)
        try server.store.requestLog.flush()
        return (server, Console.localManagementAPI(store: server.store))
    }

    private static func send(_ api: InProcessResponder, _ method: HTTPMethod, _ target: String, _ body: String = "") throws -> [UInt8] {
        let response = api.respond(
            to: HTTPRequest(
                method: method, target: "/admin/v1/" + target, headers: ["Content-Type": "application/json"], body: Array(body.utf8)))
        #expect((200..<300).contains(Int(response.status.code)), "\(method) \(target)")
        guard case .bytes(let bytes) = response.body else { Issue.record("\(target) answered no bytes"); return [] }
        return bytes
    }

    /// Decodes `bytes` as `Result` and encodes it again.
    private static func roundTrip<Result: ManagementResult>(_ type: Result.Type, _ bytes: [UInt8]) throws -> String {
        String(decoding: try Result(json: try JSONValue.parse(bytes)).json.serialized(), as: UTF8.self)
    }

    @Test func everyResultWritesBackTheBytesTheAPISent() throws {
        let (server, api) = try Self.seeded()
        let c = server.container.rawValue
        let cases: [(HTTPMethod, String, String, ([UInt8]) throws -> String)] = [
            (
                .post, "containers/\(c)/tokens", #"{"name":"web","allowedOrigins":["https://app.example.com"]}"#,
                { try Self.roundTrip(APITokenView.self, $0) }
            ),
            (.get, "containers/\(c)/tokens", "", { try Self.roundTrip(APITokensView.self, $0) }),
            (.get, "containers/\(c)/keys", "", { try Self.roundTrip(ServerKeysView.self, $0) }),
            (.get, "containers", "", { try Self.roundTrip(ContainersView.self, $0) }),
            (.get, "containers/\(c)", "", { try Self.roundTrip(ContainerView.self, $0) }),
            (.get, "management-tokens", "", { try Self.roundTrip(ManagementTokensView.self, $0) }),
            (.get, "containers/\(c)/users", "", { try Self.roundTrip(UsersView.self, $0) }),
            (.post, "containers/\(c)/users/alice/sign-out", "", { try Self.roundTrip(SignOutOutcome.self, $0) }),
            (.get, "containers/\(c)/development/schema", "", { try Self.roundTrip(EnvironmentSchemaView.self, $0) }),
            (
                .post, "containers/\(c)/development/schema/validate", "DEFINE SCHEMA\n RECORD TYPE A (x STRING);\n",
                { try Self.roundTrip(SchemaValidation.self, $0) }
            ),
            (
                .put, "containers/\(c)/development/schema?dryRun=true", "DEFINE SCHEMA\n RECORD TYPE A (x STRING QUERYABLE);\n",
                { try Self.roundTrip(SchemaImportPreviewView.self, $0) }
            ),
            (
                .post, "containers/\(c)/development/record-types/Note/fields", #"{"name":"body","type":"STRING","indexes":["SEARCHABLE"]}"#,
                { try Self.roundTrip(RecordTypeView.self, $0) }
            ),
            (.get, "containers/\(c)/development/private/zones?user=alice", "", { try Self.roundTrip(ZonesView.self, $0) }),
            (
                .post, "containers/\(c)/development/private/zones", #"{"zoneName":"Extra","user":"alice"}"#,
                { try Self.roundTrip(ZoneChangeView.self, $0) }
            ),
            (.get, "containers/\(c)/development/security", "", { try Self.roundTrip(SecurityView.self, $0) }),
            (
                .put, "containers/\(c)/development/users/alice/roles", #"{"roles":["Editor"]}"#,
                { try Self.roundTrip(UserRolesView.self, $0) }
            ),
            (
                .post, "containers/\(c)/development/security/simulate", #"{"subject":"alice","permission":"CREATE","recordType":"Note"}"#,
                { try Self.roundTrip(AccessDecisionView.self, $0) }
            ),
            (.get, "containers/\(c)/development/limits", "", { try Self.roundTrip(LimitsView.self, $0) }),
            (.get, "containers/\(c)/development/usage?range=hour", "", { try Self.roundTrip(UsageView.self, $0) }),
            (.get, "containers/\(c)/development/push-tokens", "", { try Self.roundTrip(PushTokensView.self, $0) }),
            (.get, "containers/\(c)/development/notifications", "", { try Self.roundTrip(NotificationQueuesView.self, $0) }),
            (.get, "containers/\(c)/development/subscriptions", "", { try Self.roundTrip(SubscriptionsView.self, $0) }),
            (.get, "containers/\(c)/development/shares", "", { try Self.roundTrip(SharesView.self, $0) }),
            (
                .get, "containers/\(c)/development/public/zones/_defaultZone/changes?after=0", "",
                { try Self.roundTrip(ChangeLogView.self, $0) }
            ),
            (
                .get, "containers/\(c)/development/public/zones/_defaultZone/changes/next", "",
                { try Self.roundTrip(NextChangesView.self, $0) }
            ),
            (.get, "containers/\(c)/deployment", "", { try Self.roundTrip(SchemaDifferenceView.self, $0) }),
            (.post, "containers/\(c)/deployment", "", { try Self.roundTrip(SchemaDeploymentView.self, $0) }),
            (.get, "containers/\(c)/deployments", "", { try Self.roundTrip(SchemaDeploymentsView.self, $0) }),
            (.get, "containers/\(c)/reset", "", { try Self.roundTrip(DevelopmentContentsView.self, $0) }),
            (.get, "containers/\(c)/logs", "", { try Self.roundTrip(RequestLogView.self, $0) }),
            (.get, "containers/\(c)/logs/requests/req-modify", "", { try Self.roundTrip(RequestLogEntryView.self, $0) }),
            (.get, "containers/\(c)/development/usage/summary", "", { try Self.roundTrip(UsageSummaryView.self, $0) }),
            (.get, "audit", "", { try Self.roundTrip(AuditTrailView.self, $0) }),
            (.get, "sign-in-attacks", "", { try Self.roundTrip(SignInAttacksView.self, $0) }),
            (.post, "containers/\(c)/reset", #"{"confirm":"\#(c)"}"#, { try Self.roundTrip(ResetOutcome.self, $0) }),
        ]
        for (method, target, body, roundTrip) in cases {
            let bytes = try Self.send(api, method, target, body)
            #expect(try roundTrip(bytes) == String(decoding: bytes, as: UTF8.self), "\(method) \(target)")
        }
    }

    @Test func theTypedAnswerCarriesWhatTheStoreHolds() throws {
        let (server, api) = try Self.seeded()
        let c = server.container.rawValue
        let users = try UsersView(json: try JSONValue.parse(try Self.send(api, .get, "containers/\(c)/users")))
        #expect(users.users.map(\.name) == ["alice"])
        #expect(users.users.first?.emailAddress == "alice@example.com")
        #expect(users.users.first?.roles[.development] == ["Editor"])
        let schema = try EnvironmentSchemaView(json: try JSONValue.parse(try Self.send(api, .get, "containers/\(c)/development/schema")))
        #expect(schema.editable && schema.roles == ["Editor"])
        #expect(
            schema.recordTypes.first { $0.name == "Note" }?.fields.contains { $0.name == "title" && $0.indexes == ["QUERYABLE"] } == true)
        #expect(throws: MalformedAnswer.self) { try UsersView(json: ["users": [["name": "alice"]]]) }
    }
}
