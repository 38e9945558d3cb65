import CloudStore
import Foundation
import TestSupport
import Testing

@testable import WebServices

/// Every API call joins the request log, with what it asked and how it was answered.
@Suite struct RequestLogAPITests {
    @Test func theLogHoldsExactlyTheCallsMadeWithTheirStatuses() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let user = try #require(try server.store.users(server.container).first?.userRecordName)
        let calls: [(String, String, String?, Int)] = [
            ("public", "records/lookup", #"{"records":[{"recordName":"nothing"}]}"#, 200),
            ("public", "records/query", "[1,", 400),
            ("private", "zones/list", nil, 421),
            ("private", "zones/list", "{}", 200),
        ]
        for (index, (database, operation, body, status)) in calls.enumerated() {
            let response =
                index == 3
                ? try server.post(database, operation, body ?? "{}", webAuthToken: token)
                : try server.send("POST", server.authorized(server.path(database, operation)), body: body)
            #expect(response.status == status, "\(operation)")
        }
        let entries = try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue)).reversed()
        #expect(entries.map(\.operation) == calls.map(\.1))
        #expect(entries.map(\.database) == calls.map(\.0))
        #expect(entries.map(\.status) == calls.map(\.3))
        #expect(entries.map(\.serverErrorCode) == [nil, "BAD_REQUEST", "AUTHENTICATION_REQUIRED", nil])
        #expect(entries.map(\.user) == [nil, nil, nil, user])
        #expect(entries.allSatisfy { $0.environment == "development" && $0.clientAddress.hasPrefix("127.0.0.1") && !$0.requestID.isEmpty })
        #expect(entries.first?.bytesIn == Int64(calls[0].2?.utf8.count ?? 0) && (entries.first?.bytesOut ?? 0) > 0)
        #expect(try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue, errorsOnly: true)).count == 2)
    }

    /// A call's detail: the reason its error answer gave, the credential by name, the user agent,
    /// and for a write, the record types, the zone and the records that failed one by one.
    @Test func theLogKeepsWhyACallFailedAndWhichRecordsFailedInsideASuccess() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let create = #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{}}}]}"#
        #expect(try server.post("private", "records/modify", create, webAuthToken: token).status == 200)
        let again = #"""
            {"operations":[{"operationType":"create","record":{"recordName":"b","recordType":"Note","fields":{}}},
                           {"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{}}}]}
            """#
        let partial = try server.post("private", "records/modify", again, webAuthToken: token)
        #expect(partial.status == 200)
        let answer = String(decoding: partial.body, as: UTF8.self)
        let refused = try server.send(
            "POST", server.authorized(server.path("public", "records/query")), body: "{}", headers: ["User-Agent": "CloudKitJS/2.0 test"])
        #expect(refused.status == 400)
        let entries = try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue))
        let failed = try #require(entries.first { $0.status == 400 })
        let sentReason = try #require(
            (try JSONSerialization.jsonObject(with: Data(refused.body)) as? [String: Any])?["reason"] as? String)
        #expect(failed.reason == sentReason, "the reason the client was sent")
        #expect(failed.userAgent == "CloudKitJS/2.0 test")
        #expect(failed.credential == .apiToken(server.apiToken.name))
        let write = try #require(entries.first { $0.status == 200 && $0.results == 2 })
        #expect(write.recordTypes == "Note" && write.zones == "_defaultZone")
        #expect(write.failedResults == 1, "\(answer)")
        let code = try #require(write.resultErrors.keys.first)
        #expect(answer.contains(#""serverErrorCode":"\#(code)""#))
        #expect(write.isFailure)
        #expect(write.reason?.hasPrefix(code + ": ") == true && (write.reason?.count ?? 0) > code.count + 2, "the failed record's reason")
        // A read's answer, written out as text, is scanned for its records' types and zones.
        let lookup = #"{"records":[{"recordName":"a"},{"recordName":"b"},{"recordName":"missing"}]}"#
        #expect(try server.post("private", "records/lookup", lookup, webAuthToken: token).status == 200)
        let read = try #require(
            try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue, operation: "records/lookup")).first)
        #expect(read.results == 3 && read.recordTypes == "Note" && read.zones == "_defaultZone")
        #expect(read.resultErrors.isEmpty && !read.isFailure, "a lookup's NOT_FOUND answers what was asked")
        let failures = try server.store.requestLog.entries(RequestLogFilter(container: server.container.rawValue, errorsOnly: true))
        #expect(Set(failures.map(\.requestID)) == [failed.requestID, write.requestID])
    }
}
