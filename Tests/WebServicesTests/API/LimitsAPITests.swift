import CloudStore
import Foundation
import TestSupport
import Testing

@testable import WebServices

/// Limits answer as CloudKit's do: THROTTLED (429) with `retryAfter`, QUOTA_EXCEEDED (413).
@Suite struct LimitsAPITests {
    static let lookup = #"{"records":[{"recordName":"nothing"}]}"#

    @Test func pastTheRateTheAPIAnswersThrottledAndServesAgainAfterRetryAfter() throws {
        let server = try APITestServer()
        try server.store.setLimits(EnvironmentLimits(requestsPerSecond: 1, burst: 2), of: server.container, .development)
        #expect(try server.post("public", "records/lookup", Self.lookup).status == 200)
        #expect(try server.post("public", "records/lookup", Self.lookup).status == 200)
        let throttled = try server.post("public", "records/lookup", Self.lookup)
        #expect(throttled.status == 429)
        let body = try throttled.json()
        #expect(body["serverErrorCode"]?.stringValue == "THROTTLED")
        let retryAfter = try #require(body["retryAfter"]?.int64Value(acceptingNumericString: false))
        #expect(retryAfter == 1)
        #expect(body["uuid"]?.stringValue?.isEmpty == false)
        // Production is limited on its own: its bucket is full.
        let production = try server.store.createAPIToken(server.container, .production)
        let other = try server.send(
            "POST", "\(server.path("public", "records/lookup", environment: "production"))?ckAPIToken=\(production.token)",
            body: Self.lookup)
        #expect(other.status == 200)
        Thread.sleep(forTimeInterval: Double(retryAfter))
        #expect(try server.post("public", "records/lookup", Self.lookup).status == 200, "served again after waiting retryAfter")
        // The bucket is empty again; a request without credentials is refused for that, before
        // any limit counts it.
        let anonymous = try server.send("POST", server.path("public", "records/lookup"), body: Self.lookup)
        #expect(anonymous.status == 400)
        #expect(try anonymous.json()["serverErrorCode"]?.stringValue == "BAD_REQUEST")
    }

    @Test func aRecordsModifyPastTheStorageQuotaIsRefusedAndWritesNothing() throws {
        let server = try APITestServer()
        try server.store.importSchema(
            #"DEFINE SCHEMA RECORD TYPE Note (title STRING, GRANT CREATE TO "_icloud", GRANT READ TO "_world", GRANT WRITE TO "_creator");"#,
            into: server.container, .development)
        let token = try server.signIn()
        try server.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 100, burst: 100, storageBytes: 300), of: server.container, .development)
        let body =
            #"{"operations":[{"operationType":"create","record":{"recordName":"a","recordType":"Note","fields":{"title":{"value":"%@"}}}},"#
            + #"{"operationType":"create","record":{"recordName":"b","recordType":"Note","fields":{"title":{"value":"small"}}}}]}"#
        let refused = try server.post(
            "public", "records/modify", body.replacingOccurrences(of: "%@", with: String(repeating: "x", count: 400)),
            webAuthToken: token)
        #expect(refused.status == 413)
        #expect(try refused.json()["serverErrorCode"]?.stringValue == "QUOTA_EXCEEDED")
        let lookup = try server.post("public", "records/lookup", #"{"records":[{"recordName":"a"},{"recordName":"b"}]}"#)
        #expect(try lookup.json()["records"]?.arrayValue?.compactMap { $0["serverErrorCode"]?.stringValue } == ["NOT_FOUND", "NOT_FOUND"])
        #expect(try server.store.usage(of: server.container)[.development]?.records == 0)
        let fits = try server.post("public", "records/modify", body.replacingOccurrences(of: "%@", with: "short"), webAuthToken: token)
        #expect(fits.status == 200)
        #expect(try server.store.usage(of: server.container)[.development]?.records == 2)
    }

    @Test func pastTheMonthsTransferTheAPIAnswersQuotaExceeded() throws {
        let server = try APITestServer()
        try server.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 100, burst: 100, transferBytesPerMonth: 100), of: server.container, .development)
        #expect(try server.post("public", "records/lookup", Self.lookup).status == 200)
        try server.store.requestLog.flush()
        let refused = try server.post("public", "records/lookup", Self.lookup)
        #expect(refused.status == 413)
        #expect(try refused.json()["serverErrorCode"]?.stringValue == "QUOTA_EXCEEDED")
    }
}
