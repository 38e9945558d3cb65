import TestSupport
import Testing

@testable import CloudStore

/// What a call's detail shows, kept by the request log on either backend: the reason of an
/// error, the credential, the user agent, the record types and zones, and per-result outcomes;
/// and a `200` whose records failed one by one counted as a failure.
@Suite struct RequestLogDetailTests {
    static func call(_ index: Int, time: Int64, status: Int = 200, operation: String = "records/modify") -> RequestLogEntry {
        RequestLogEntry(
            time: time, container: "iCloud.com.example.A", environment: "development", database: "public", operation: operation,
            user: nil, clientAddress: "127.0.0.1", status: status, serverErrorCode: status >= 400 ? "BAD_REQUEST" : nil,
            durationMicroseconds: 100, bytesIn: 10, bytesOut: 20, requestID: "r\(index)")
    }

    @Test func theDetailOfACallIsKeptAndReadBack() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        var failed = Self.call(0, time: store.clock.tick(), status: 400, operation: "records/query")
        failed.reason = "Unknown record type 'Nope'"
        failed.credential = .apiToken("web")
        failed.userAgent = "CloudKitJS/2.0 (Macintosh)"
        var partial = Self.call(1, time: store.clock.tick())
        partial.credential = .serverKey("deploy")
        partial.recordTypes = "Note,Photo"
        partial.zones = "_defaultZone"
        partial.results = 5
        partial.resultErrors = ["ACCESS_DENIED": 2]
        let plain = Self.call(2, time: store.clock.tick())
        for call in [failed, partial, plain] { log.record(call) }
        try log.flush()
        let read = try log.entries(RequestLogFilter(container: "iCloud.com.example.A"))
        #expect(read.map(\.requestID) == ["r2", "r1", "r0"])
        let readFailed = try #require(read.first { $0.requestID == "r0" })
        #expect(readFailed.reason == "Unknown record type 'Nope'")
        #expect(readFailed.credential == .apiToken("web"))
        #expect(readFailed.userAgent == "CloudKitJS/2.0 (Macintosh)")
        let readPartial = try #require(read.first { $0.requestID == "r1" })
        #expect(readPartial.credential == .serverKey("deploy"))
        #expect(readPartial.recordTypes == "Note,Photo" && readPartial.zones == "_defaultZone")
        #expect(readPartial.results == 5 && readPartial.resultErrors == ["ACCESS_DENIED": 2])
        #expect(readPartial.resultFailureSummary == "2 of 5 records: ACCESS_DENIED")
        let readPlain = try #require(read.first { $0.requestID == "r2" })
        #expect(readPlain.reason == nil && readPlain.credential == nil && readPlain.results == nil && readPlain.resultErrors.isEmpty)
    }

    /// A call's access decisions are kept whole, each check in order, and read back as recorded;
    /// calls without any read back none.
    @Test func aCallsAccessTraceIsKeptAndReadBack() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        let refusal = AccessExplanation(
            caller: "user(_bob)", permission: .write, database: "public", recordType: "Note", recordName: "n1", zone: "_defaultZone",
            checks: [
                .init(rule: #"GRANT WRITE TO "_creator""#, gives: false, why: "_alice created the record"),
                .init(rule: #"GRANT READ TO "_world""#, gives: false, why: "it gives READ, not WRITE"),
            ], decision: .denied(.noGrant(.write, recordType: "Note", held: ["_world", "_icloud"])))
        let credentials = AccessExplanation.refusal(
            caller: "unknown", database: "private", rule: "a request carries a known API token",
            why: "Unknown API token \"ü\" \n\t\u{1}\\ 🙂")
        var traced = Self.call(0, time: store.clock.tick())
        traced.trace = [refusal, credentials]
        for call in [traced, Self.call(1, time: store.clock.tick())] { log.record(call) }
        try log.flush()
        let read = try log.entries(RequestLogFilter(container: "iCloud.com.example.A"))
        let readTraced = try #require(read.first { $0.requestID == "r0" })
        #expect(readTraced.trace.count == 2)
        for (kept, recorded) in zip(readTraced.trace, [refusal, credentials]) {
            #expect(kept.caller == recorded.caller && kept.permission == recorded.permission && kept.database == recorded.database)
            #expect(kept.recordType == recorded.recordType && kept.recordName == recorded.recordName && kept.zone == recorded.zone)
            #expect(kept.checks == recorded.checks)
            #expect(kept.decision.isAllowed == recorded.decision.isAllowed && kept.decision.rule == recorded.decision.rule)
        }
        #expect(readTraced.trace[0].decision.rule == "no grant gives WRITE on Note to _world, _icloud")
        #expect(read.first { $0.requestID == "r1" }?.trace.isEmpty == true)
    }

    @Test func aSuccessWithFailedRecordsIsFoundByFailuresOnly() throws {
        let store = try TemporaryStore()
        let log = store.store.requestLog
        var partial = Self.call(1, time: store.clock.tick())
        partial.results = 3
        partial.resultErrors = ["CONFLICT": 1, "ACCESS_DENIED": 1]
        var whole = Self.call(2, time: store.clock.tick())
        whole.results = 3
        for call in [Self.call(0, time: store.clock.tick(), status: 401), partial, whole] { log.record(call) }
        try log.flush()
        let failures = try log.entries(RequestLogFilter(container: "iCloud.com.example.A", errorsOnly: true))
        #expect(failures.map(\.requestID) == ["r1", "r0"])
        #expect(failures.first?.resultFailureSummary == "2 of 3 records: ACCESS_DENIED, CONFLICT")
        #expect(RequestLogFilter(errorsOnly: true).matches(partial), "the live tail passes it too")
        #expect(!RequestLogFilter(errorsOnly: true).matches(whole))
    }

    @Test func packedFormsReadBackAndRefuseWhatTheyDidNotWrite() {
        #expect(RequestLogCredential(packed: RequestLogCredential.apiToken("a:b").packed) == .apiToken("a:b"))
        #expect(RequestLogCredential(packed: "x:name") == nil)
        #expect(RequestLogCredential(packed: nil) == nil)
        var entry = Self.call(0, time: 0)
        entry.resultErrors = ["CONFLICT": 2, "ACCESS_DENIED": 1]
        #expect(entry.packedResultErrors == "ACCESS_DENIED=1,CONFLICT=2")
        #expect(RequestLogEntry.resultErrors(packed: entry.packedResultErrors) == entry.resultErrors)
        #expect(RequestLogEntry.resultErrors(packed: "junk,A=x") == [:])
    }
}
