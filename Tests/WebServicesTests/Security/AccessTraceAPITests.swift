import CloudStore
import Foundation
import TestSupport
import Testing

@testable import WebServices

/// Every refused API call keeps, in the request log, the access decision that refused it, as
/// the enforcing check took it at the time of the call; the permission simulator explains the
/// same inputs the same way.
@Suite struct AccessTraceAPITests {
    /// The call a response answers, from the request log.
    private static func logged(_ response: APIResponse, in server: APITestServer) throws -> RequestLogEntry {
        let id = try #require(response.headers.first { $0.name.lowercased() == "x-apple-request-uuid" }?.value)
        return try #require(
            try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue, requestID: id)).first)
    }

    /// The deciding rule of a refused call's trace, after checking the trace refuses.
    private static func refusingRule(_ entry: RequestLogEntry, _ label: String) -> String? {
        let refusal = entry.trace.first { !$0.decision.isAllowed }
        #expect(refusal != nil, "\(label): no refusal recorded (\(entry.status) \(entry.serverErrorCode ?? ""))")
        #expect(refusal?.checks.contains { !$0.gives } == true, "\(label): the checks say what did not give it")
        return refusal?.decision.rule
    }

    /// Walks the route table: each endpoint is called with credentials the server does not know,
    /// and, where a caller of the wrong kind exists, as that caller. Each refusal's log entry
    /// names the rule that refused.
    @Test func everyEndpointsRefusalIsTracedWithTheRuleThatRefused() throws {
        let server = try APITestServer()
        let alice = try server.signIn()
        try server.store.addUser(server.container, name: "bob", password: "another horse battery")
        let bob = try server.store.signIn(server.container, .development, name: "bob", password: "another horse battery").webAuthToken
        let registered = try server.post("public", "tokens/create", "{}", webAuthToken: alice)
        let aliceToken = try #require(
            (try JSONSerialization.jsonObject(with: Data(registered.body)) as? [String: Any])?["apnsToken"] as? String)

        var walked: [String] = []
        for route in WebServices.routeTable {
            guard case .endpoint = route.handler, let operation = route.operation, let method = route.methods.first else { continue }
            let label = "\(method.rawValue) \(route.pattern)"
            walked.append(label)
            let path = route.link(base: "", ["container": server.container.rawValue, "environment": "development", "database": "private"])
            let body = method == .get ? nil : "{}"

            let unknown = try server.send(method.rawValue, path + "?ckAPIToken=unknown-token", body: body)
            #expect(unknown.status == 401, "\(label)")
            #expect(
                Self.refusingRule(try Self.logged(unknown, in: server), label)
                    == "a request carries a known API token (with a live session) or a valid server-to-server signature", "\(label)")

            // The caller of the wrong kind: the world in a private database, another user for a
            // push token; `tokens/create` refuses no caller who got in.
            let expected: String?
            let refused: APIResponse
            switch operation {
            case "tokens/create":
                continue
            case "tokens/register":
                refused = try server.send(
                    method.rawValue, server.authorized(path, webAuthToken: bob),
                    body: #"{"apnsEnvironment":"development","apnsToken":"\#(aliceToken)"}"#)
                expected = "a push token is registered by the user who holds it"
            case "users/caller", "users/current":
                refused = try server.send(method.rawValue, server.authorized(path), body: body)
                expected = "this request needs a signed-in user"
            case let users where users.hasPrefix("users/"):
                refused = try server.send(
                    method.rawValue, server.authorized(path),
                    body: users == "users/discover" || users == "users/lookup/contacts"
                        ? body
                        : #"{"users":[{"emailAddress":"alice@example.com","userRecordName":"x"}]}"#)
                expected = "discovering users needs a signed-in user"
            case "records/resolve", "records/accept":
                refused = try server.send(method.rawValue, server.authorized(path), body: #"{"shortGUIDs":[{"value":"abc"}]}"#)
                expected = "resolving and accepting shares needs a signed-in user"
            default:
                // A body each endpoint reads through, so that the database's check refuses.
                let bodies = [
                    "assets/upload": #"{"tokens":[{"recordType":"Note","fieldName":"f"}]}"#,
                    "assets/rereference": #"{"assets":[{"recordName":"a","fieldName":"f"}]}"#,
                ]
                refused = try server.send(method.rawValue, server.authorized(path), body: bodies[operation] ?? body)
                expected = "the private database needs a signed-in user"
            }
            #expect(refused.status >= 400, "\(label): \(String(decoding: refused.body, as: UTF8.self))")
            #expect(Self.refusingRule(try Self.logged(refused, in: server), label) == expected, "\(label)")
        }
        #expect(walked.count == WebServices.routeTable.filter { if case .endpoint = $0.handler { true } else { false } }.count)
        #expect(walked.count == 29)
    }

    /// A write refused by the type's grants is traced record by record with every grant weighed,
    /// exactly as the permission simulator explains the same question.
    @Test func aRefusedWriteIsTracedAsTheSimulatorExplainsIt() throws {
        let server = try APITestServer()
        try server.defineNote(#""title" STRING"#)
        let alice = try server.signIn()
        try server.store.addUser(server.container, name: "bob", password: "another horse battery")
        let bob = try server.store.signIn(server.container, .development, name: "bob", password: "another horse battery").webAuthToken
        let create =
            #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"a"}}}}]}"#
        #expect(try server.post("public", "records/modify", create, webAuthToken: alice).status == 200)

        let update =
            #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"n1","recordType":"Note","fields":{"title":{"value":"b"}}}}]}"#
        let refused = try server.post("public", "records/modify", update, webAuthToken: bob)
        #expect(refused.status == 200 && String(decoding: refused.body, as: UTF8.self).contains("ACCESS_DENIED"))
        let entry = try Self.logged(refused, in: server)
        let traced = try #require(entry.trace.first)
        #expect(entry.trace.count == 1)
        let bobName = try #require(try server.store.users(server.container).first { $0.name == "bob" }?.userRecordName)
        let simulated = try server.store.explainAccess(
            .write, recordType: "Note", recordName: "n1", as: .user(bobName), in: server.container, .development)
        #expect(traced.caller == "user(\(bobName))" && traced.caller == simulated.caller)
        #expect(traced.permission == .write && traced.recordType == "Note" && traced.recordName == "n1" && traced.zone == "_defaultZone")
        #expect(traced.database == simulated.database)
        #expect(traced.checks == simulated.checks)
        #expect(traced.decision.isAllowed == false && simulated.decision.isAllowed == false)
        #expect(traced.decision.rule == simulated.decision.rule)
        #expect(traced.decision.rule == "no grant gives WRITE on Note to _world, _icloud")
        #expect(
            traced.checks.contains(
                .init(rule: #"GRANT WRITE TO "_creator""#, gives: false, why: "\(try aliceName(server)) created the record")))

        // The world may not change anything: refused before any grant is weighed.
        let world = try server.post("public", "records/modify", update)
        #expect(world.status == 421)
        let worldTrace = try Self.logged(world, in: server).trace
        #expect(worldTrace.map(\.decision.rule) == ["the world only reads; WRITE needs a signed-in user"])
        // A query of a type no grant lets the caller read is traced with the grants weighed.
        try server.store.importSchema(
            #"DEFINE SCHEMA RECORD TYPE Secret ( "___recordID" REFERENCE QUERYABLE, "code" STRING QUERYABLE, GRANT WRITE TO "_creator" );"#,
            into: server.container, .development)
        let query = try server.post("public", "records/query", #"{"query":{"recordType":"Secret"}}"#, webAuthToken: bob)
        #expect(query.status == 403)
        let queryTrace = try #require(try Self.logged(query, in: server).trace.first)
        #expect(queryTrace.permission == .read && queryTrace.recordType == "Secret")
        #expect(queryTrace.decision.rule.hasPrefix("no grant gives READ on Secret to _world, _icloud, _creator"))
    }

    private func aliceName(_ server: APITestServer) throws -> String {
        try #require(try server.store.users(server.container).first { $0.name == "alice" }?.userRecordName)
    }

    /// A sampled call keeps what it was allowed, and why; an unsampled one keeps nothing.
    @Test func sampledCallsKeepTheirAllowedDecisions() throws {
        for rate in [1.0, 0.0] {
            let server = try APITestServer(configureAPI: { $0.traceSampler = RequestTraceSampler(rate: rate) })
            try server.defineNote(#""title" STRING"#)
            let alice = try server.signIn()
            let create = #"{"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note","fields":{}}}]}"#
            let created = try server.post("public", "records/modify", create, webAuthToken: alice)
            #expect(created.status == 200)
            let trace = try Self.logged(created, in: server).trace
            if rate == 1 {
                #expect(trace.map(\.permission) == [.create, .read], "the create, and the read of what it answers")
                #expect(trace.allSatisfy { $0.decision.isAllowed })
                #expect(trace.first?.decision.rule == #"GRANT CREATE TO "_icloud" (the caller is signed in)"#)
                #expect(trace.first?.checks.contains { $0.gives && $0.rule == #"GRANT CREATE TO "_icloud""# } == true)
            } else {
                #expect(trace.isEmpty)
            }
        }
    }
}
