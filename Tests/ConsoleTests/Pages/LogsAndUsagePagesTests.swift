import CloudStore
import Foundation
import TestSupport
import Testing

/// The request log's list, filter and call detail, and the usage page's figures, over a real socket.
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
}
