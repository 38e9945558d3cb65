import CloudKitWire
import Console
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// The request log's list, filter, call detail and exports, and the usage page's figures, over a
/// real socket: the pages and their management routes, which call the same actions.
@Suite struct LogsAndUsagePagesTests {
    static let operatorName = "root"
    static let password = "operator password"

    /// A server whose log holds a records/modify by alice with two of five records refused, a
    /// 400 with its reason, and a call logged as before details were kept.
    private static func server() throws -> (ConsoleTestServer, cookie: (String, String), alice: String) {
        let server = try ConsoleTestServer(apiOperations: ["records/changes", "records/modify", "records/query", "zones/changes"])
        try server.store.addOperator(operatorName, password: password)
        let alice = try server.store.addUser(server.container, name: "alice", password: "a long passphrase").userRecordName
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        func call(_ id: String, _ operation: String, status: Int, user: String?) -> RequestLogEntry {
            RequestLogEntry(
                time: now, container: server.container.rawValue, environment: "development", database: "public", operation: operation,
                user: user, clientAddress: "192.0.2.7", status: status, serverErrorCode: status >= 400 ? "BAD_REQUEST" : nil,
                durationMicroseconds: 1_500, bytesIn: 100, bytesOut: 200, requestID: id)
        }
        var partial = call("req-partial", "records/modify", status: 200, user: alice)
        partial.credential = .apiToken("web app")
        partial.userAgent = "CloudKitJS/2.0"
        partial.recordTypes = "Note,Photo"
        partial.zones = "_defaultZone"
        partial.results = 5
        partial.resultErrors = ["ACCESS_DENIED": 2]
        var refused = call("req-refused", "records/query", status: 400, user: nil)
        refused.reason = "Unknown record type 'Nope'"
        let old = call("req-old", "records/query", status: 200, user: nil)
        for entry in [old, refused, partial] { server.store.requestLog.record(entry) }
        try server.store.requestLog.flush()
        let signedIn = try server.store.signInOperator(operatorName, password: password, clientAddress: nil)
        return (server, ("Cookie", "cumulus_console=\(signedIn.secret)"), alice)
    }

    private static func text(_ response: TestResponse) -> String { String(decoding: response.body, as: UTF8.self) }

    @Test func errorsOnlyFindsASuccessWithFailedRecordsAndFlagsIt() throws {
        let (server, cookie, alice) = try Self.server()
        let base = "/console/containers/\(server.container.rawValue)/development/logs"
        let all = Self.text(try server.get(base, headers: [cookie]))
        #expect(all.contains("2 of 5 records: ACCESS_DENIED"))
        #expect(all.contains(">alice (<code>"), "the user by name")
        #expect(!all.contains(">\(alice)<"), "not by record name")
        #expect(all.contains(#"<option value="records/changes">"#) && all.contains(#"<option value="zones/changes">"#))
        let errors = Self.text(try server.get(base + "?errors=1", headers: [cookie]))
        #expect(errors.contains("req-partial") && errors.contains("req-refused"))
        #expect(!errors.contains("req-old"))
    }

    /// The list itself tells failures apart by their reason, and names each call's credential.
    @Test func aRowSaysWhyItsCallFailedAndWhichCredentialItCarried() throws {
        let (server, cookie, _) = try Self.server()
        let list = Self.text(try server.get("/console/containers/\(server.container.rawValue)/development/logs", headers: [cookie]))
        let rows = list.components(separatedBy: "<tr").filter { $0.contains("data-label=\"Status\"") }
        let refused = try #require(rows.first { $0.contains("req-refused") })
        #expect(refused.contains(#"BAD_REQUEST</span> <span class="muted small">Unknown record type &#39;Nope&#39;</span>"#), "\(refused)")
        let partial = try #require(rows.first { $0.contains("req-partial") })
        #expect(partial.contains("192.0.2.7 · API token web app"))
        let old = try #require(rows.first { $0.contains("req-old") })
        #expect(old.contains("192.0.2.7</span>") && !old.contains("Unknown record type"), "no credential, no reason")
        // The page says what the log keeps: its age and the default size bound, in the bound's own units.
        #expect(list.contains("Calls are kept 7 days, the oldest forgotten first past 1 GiB."), "\(list)")
    }

    @Test func aCallsDetailNamesTheReasonTheCredentialAndTheOutcomes() throws {
        let (server, cookie, _) = try Self.server()
        let base = "/console/containers/\(server.container.rawValue)/development/logs"
        let entries = try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue))
        func detail(_ requestID: String) throws -> String {
            let id = try #require(entries.first { $0.requestID == requestID }).id
            let page = Self.text(try server.get(base + "/requests/\(id)", headers: [cookie]))
            #expect(Self.text(try server.get(base, headers: [cookie])).contains("\(base)/requests/\(id)"), "the row links to it")
            return page
        }
        let refused = try detail("req-refused")
        #expect(refused.contains("Unknown record type &#39;Nope&#39;") || refused.contains("Unknown record type &apos;Nope&apos;"))
        let partial = try detail("req-partial")
        #expect(partial.contains("API token web app"))
        #expect(partial.contains("CloudKitJS/2.0"))
        #expect(partial.contains("Note, Photo"))
        #expect(partial.contains("<code>ACCESS_DENIED</code>: 2"))
        #expect(partial.contains("<code>succeeded</code>: 3"))
        let old = try detail("req-old")
        #expect(old.contains(#"<dd id="log-reason">—</dd>"#))
        #expect(try server.get(base + "/requests/999999", headers: [cookie]).status == 404)
    }

    @Test func usageShowsTotalsAndABreakdownByOperationOrSaysThereIsNoTraffic() throws {
        let (server, cookie, _) = try Self.server()
        let usage = Self.text(try server.get("/console/containers/\(server.container.rawValue)/development/usage", headers: [cookie]))
        #expect(usage.contains(#"id="usage-totals""#))
        #expect(usage.contains("<dt>Requests</dt><dd>3</dd>"))
        #expect(usage.contains(#"id="usage-operations""#) && usage.contains("<code>records/modify</code>"))
        #expect(usage.contains("Storage is the bytes of the records"))
        #expect(usage.contains(#"aria-current="page">Last hour"#), "the range that fits the calls")
        #expect(!usage.contains("No traffic yet"))
        let empty = Self.text(try server.get("/console/containers/\(server.container.rawValue)/production/usage", headers: [cookie]))
        #expect(empty.contains("No traffic yet"))
        #expect(!empty.contains(#"id="usage-operations""#))
    }

    /// The management token of the fixture's operator, as a header.
    private static func authorization(_ server: ConsoleTestServer) throws -> [(String, String)] {
        [("Authorization", "Bearer " + (try server.store.createManagementToken(for: operatorName, name: "script").text))]
    }

    /// What the call detail page shows is a management route too, by the call's place in the
    /// log or its request id, with every detail the log keeps; the wrong caller is refused.
    @Test func aCallsDetailIsAManagementRouteByItsIDOrItsRequestID() throws {
        let (server, cookie, alice) = try Self.server()
        let auth = try Self.authorization(server)
        let base = "/admin/v1/containers/\(server.container.rawValue)/logs/requests/"
        let partial = try server.get(base + "req-partial", headers: auth)
        #expect(partial.status == 200)
        let json = try partial.json()
        #expect(json["requestID"] == "req-partial" && json["user"] == .string(alice) && json["status"] == 200)
        #expect(json["credential"] == ["kind": "apiToken", "name": "web app"])
        #expect(json["userAgent"] == "CloudKitJS/2.0")
        #expect(json["recordTypes"] == ["Note", "Photo"] && json["zones"] == ["_defaultZone"])
        #expect(json["results"] == 5 && json["resultErrors"] == ["ACCESS_DENIED": 2])
        #expect(json["resultFailures"] == "2 of 5 records: ACCESS_DENIED")
        #expect(json["reason"] == .null)
        let id = try #require(json["id"]?.int64Value(acceptingNumericString: false))
        #expect(try server.get(base + String(id), headers: auth).json() == json, "by its place in the log")
        #expect(try server.get(base + "req-partial?environment=development", headers: auth).json() == json)
        let parsed = try RequestLogEntryView(json: json).entry
        #expect(
            parsed.credential == .apiToken("web app") && parsed.resultErrors == ["ACCESS_DENIED": 2] && parsed.recordTypes == "Note,Photo")
        let refused = try server.get(base + "req-refused", headers: auth).json()
        #expect(refused["reason"] == "Unknown record type 'Nope'" && refused["serverErrorCode"] == "BAD_REQUEST")
        #expect(refused["resultFailures"] == .null && refused["resultErrors"] == [:] && refused["credential"] == .null)
        let old = try server.get(base + "req-old", headers: auth).json()
        #expect(old["results"] == .null && old["recordTypes"] == .null && old["userAgent"] == .null)

        let elsewhere = try server.get(base + "req-partial?environment=production", headers: auth)
        #expect(try elsewhere.status == 404 && elsewhere.json()["serverErrorCode"] == "NOT_FOUND")
        #expect(try server.get(base + "req-none", headers: auth).status == 404)
        #expect(try server.get(base + "999999", headers: auth).status == 404)
        #expect(try server.get(base + "req-partial?environment=staging", headers: auth).status == 400)
        #expect(try server.get("/admin/v1/containers/iCloud.com.example.None/logs/requests/req-partial", headers: auth).status == 404)
        // No credential, a revoked management token, and an app user's web auth token passed as a
        // console cookie are all refused, without the call.
        let revoked = try server.store.createManagementToken(for: Self.operatorName, name: "old")
        try server.store.revokeManagementToken(revoked.token.id)
        let aliceSession = try server.store.signIn(server.container, .development, name: "alice", password: "a long passphrase")
        for headers in [[], [("Authorization", "Bearer " + revoked.text)], [("Cookie", "cumulus_console=" + aliceSession.webAuthToken)]] {
            let response = try server.get(base + "req-partial", headers: headers)
            #expect(response.status == 401 && !response.text.contains("CloudKitJS"), "\(headers)")
        }
        #expect(try server.get(base + "req-partial", headers: [cookie]).status == 200, "a signed-in operator's session may read")
    }

    /// Both exports, from the page and from the management API, carry what the log keeps of
    /// each call: reason, credential, user agent, record types, zones and per-record outcomes.
    @Test func theExportsCarryTheReasonTheCredentialAndTheOutcomes() throws {
        let (server, cookie, _) = try Self.server()
        let auth = try Self.authorization(server)
        let id = try #require(try server.store.requestLog.entries(RequestLogFilter(requestID: "req-partial")).first).id
        let page = try server.get("/console/containers/\(server.container.rawValue)/development/logs/export?format=csv", headers: [cookie])
        let api = try server.get("/admin/v1/containers/\(server.container.rawValue)/logs/export?format=csv", headers: auth)
        #expect(page.status == 200 && api.text == page.text, "one action behind both")
        let rows = page.text.split(separator: "\r\n").map(String.init)
        #expect(
            rows.first
                == "time,container,environment,database,operation,user,client,status,serverErrorCode,durationMicroseconds,bytesIn,"
                + "bytesOut,requestID,id,reason,credential,userAgent,recordTypes,zones,results,resultErrors,resultFailures")
        let partial = try #require(rows.first { $0.contains("\"req-partial\"") })
        #expect(
            partial.hasSuffix(
                #""req-partial","\#(id)","","API token web app","CloudKitJS/2.0","Note,Photo","_defaultZone","5","ACCESS_DENIED=2","2 of 5 records: ACCESS_DENIED""#
            ), "\(partial)")
        let refused = try #require(rows.first { $0.contains("\"req-refused\"") })
        #expect(refused.contains(#","Unknown record type 'Nope'","","","","","","",""#), "\(refused)")

        let lines = try server.get("/admin/v1/containers/\(server.container.rawValue)/logs/export?format=jsonl&errors=1", headers: auth)
        let entries = try lines.text.split(separator: "\n").map { try JSONValue.parse(Array($0.utf8)) }
        #expect(entries.map { $0["requestID"] } == ["req-partial", "req-refused"], "errors only finds the 200 with failed records")
        #expect(entries[0]["resultFailures"] == "2 of 5 records: ACCESS_DENIED" && entries[0]["userAgent"] == "CloudKitJS/2.0")
        #expect(entries[1]["reason"] == "Unknown record type 'Nope'")
        // The list reads back whole: every field the store keeps survives the JSON.
        let listed = try RequestLogView(
            json: try server.get("/admin/v1/containers/\(server.container.rawValue)/logs", headers: auth).json())
        #expect(listed.entries == (try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue, limit: 50))))
    }

    /// The Usage page's figures are a management route (and the command line's): totals, error
    /// rate, answer times, the busiest second against the limit and the breakdown by operation.
    @Test func theUsageSummaryIsAManagementRouteWithTheFiguresThePageShows() throws {
        let (server, cookie, _) = try Self.server()
        let auth = try Self.authorization(server)
        let base = "/admin/v1/containers/\(server.container.rawValue)"
        let response = try server.get(base + "/development/usage/summary", headers: auth)
        #expect(response.status == 200)
        let summary = try UsageSummaryView(json: try response.json())
        #expect(summary.range == "hour", "without a range, the one that fits the calls")
        #expect(summary.summary.totals.requests == 3 && summary.summary.totals.errors == 1)
        #expect(abs(summary.errorRate - 1.0 / 3) < 1e-9)
        #expect(summary.summary.peakPerSecond == 3 && summary.requestsPerSecondLimit == 5_000)
        #expect(summary.summary.totals.p99Microseconds != nil)
        #expect(summary.summary.operations.map(\.operation) == ["records/query", "records/modify"])
        #expect(summary.summary.operations.map(\.errors) == [1, 0] && summary.summary.operations.map(\.partialFailures) == [0, 1])
        let page = Self.text(try server.get("/console/containers/\(server.container.rawValue)/development/usage", headers: [cookie]))
        #expect(page.contains("3 a second, 0.06 % of the limit of 5,000"), "the page shows the same busiest second")
        #expect(
            try UsageSummaryView(json: try server.get(base + "/development/usage/summary?range=week", headers: auth).json()).range == "week"
        )
        let quiet = try UsageSummaryView(json: try server.get(base + "/production/usage/summary", headers: auth).json())
        #expect(quiet.range == "day" && quiet.summary.totals.requests == 0 && quiet.summary.lastActivity == nil)
        #expect(try server.get(base + "/development/usage/summary?range=year", headers: auth).status == 400)
        #expect(try server.get(base + "/staging/usage/summary", headers: auth).status == 400)
        for headers in [
            [], [("Authorization", "Bearer cumulus_mt_" + String(repeating: "a", count: 16) + "_" + String(repeating: "b", count: 64))],
        ] {
            let refused = try server.get(base + "/development/usage/summary", headers: headers)
            #expect(try refused.status == 401 && refused.json()["serverErrorCode"] == "AUTHENTICATION_FAILED")
        }
    }

    /// The trash and the kept versions are a figure of their own in the usage answer and on the
    /// Usage page, within the storage shown against the limit.
    @Test func theHistorysBytesAreAFigureOfTheUsageAnswerAndPage() throws {
        let (server, cookie, _) = try Self.server()
        let auth = try Self.authorization(server)
        let path = "/admin/v1/containers/\(server.container.rawValue)/development/usage"
        let before = try UsageView(json: try server.get(path, headers: auth).json())
        #expect(before.stored.historyBytes == 0)
        let database = try server.store.database(server.container, .development, .public, as: .operator())
        _ = try database.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .create, recordName: "kept", recordType: "Note", fields: ["title": .string(String(repeating: "k", count: 3000))])
            ]))
        _ = try database.modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "kept")]))
        let after = try UsageView(json: try server.get(path, headers: auth).json())
        #expect(after.stored.historyBytes > 3000)
        #expect(after.stored.recordBytes == before.stored.recordBytes, "the deleted record's bytes moved into the trash")
        #expect(after.stored.storageBytes == after.stored.recordBytes + after.stored.historyBytes)
        let page = Self.text(try server.get("/console/containers/\(server.container.rawValue)/development/usage", headers: [cookie]))
        #expect(page.contains(" of history and trash"))
        #expect(page.contains("with the versions the history and trash keep"))
    }

    /// One view of the Usage page reads the usage minutes once, where it read them three times
    /// (the fitting range, the charts and the summary each read the week's or the range's).
    @Test func theUsagePageReadsTheUsageMinutesOnce() throws {
        let (server, cookie, _) = try Self.server()
        let log = server.store.requestLog
        for query in ["", "?range=hour", "?range=week"] {
            let before = log.usageMinuteReadCount
            let page = try server.get("/console/containers/\(server.container.rawValue)/development/usage" + query, headers: [cookie])
            #expect(page.status == 200)
            #expect(log.usageMinuteReadCount == before + 1, "\(query)")
        }
    }
}
