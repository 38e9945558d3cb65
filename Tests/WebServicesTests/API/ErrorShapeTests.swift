import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

@testable import WebServices

/// Errors tell clients what they need and nothing more: a reason for what they can fix, only a
/// request id for what went wrong inside, never SQL.
@Suite struct ErrorShapeTests {
    @Test func aThousandFiltersAreABadRequestWithoutSQL() throws {
        let server = try APITestServer()
        try server.defineNote("rank INT64 QUERYABLE")
        let filters = (0..<1_001).map { #"{"comparator":"GREATER_THAN","fieldName":"rank","fieldValue":{"value":\#(-$0)}}"# }
        let response = try server.post(
            "public", "records/query", #"{"query":{"recordType":"Note","filterBy":[\#(filters.joined(separator: ","))]}}"#)
        #expect(response.status == 400)
        let body = try response.json()
        #expect(body["serverErrorCode"] == "BAD_REQUEST")
        #expect(body["reason"]?.stringValue == "A query may have at most 100 filters; this one has 1001")
        #expect(body["uuid"]?.stringValue?.isEmpty == false)
        for leak in ["SQLite", "SELECT", "sqlite", "records r"] { #expect(!response.text.contains(leak)) }
    }

    @Test(.enabled(if: TestBackend.isSQLite, "Damages the SQLite file behind the store"))
    func internalFailuresAnswerOnlyTheRequestIDAndLogTheirCause() throws {
        let log = CapturedLog()
        let server = try APITestServer(logger: log.logger(level: .error))
        let token = try server.signIn()
        let created = try server.post(
            "private", "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"broken","recordType":"Note","fields":{"t":{"value":"x"}}}}]}"#,
            webAuthToken: token)
        #expect(created.status == 200)
        // Damage the record's stored payload behind the store's back.
        let file = "\(server.directory)/containers/\(server.container)/development.sqlite"
        let raw = try RawSQLite(path: file)
        try raw.execute("UPDATE records SET payload = x'FF00' WHERE name = 'broken'")

        let response = try server.post("private", "records/lookup", #"{"records":[{"recordName":"broken"}]}"#, webAuthToken: token)
        #expect(response.status == 500)
        let body = try response.json()
        #expect(body["serverErrorCode"] == "INTERNAL_ERROR")
        let uuid = try #require(body["uuid"]?.stringValue)
        #expect(body["reason"]?.stringValue == CloudKitError.internalReason)
        #expect(!response.text.lowercased().contains("payload"))
        let logged = log.all.filter { $0.contains(uuid) }
        #expect(logged.count == 1)
        #expect(logged.first?.contains("records/lookup") == true)
    }
}

extension ErrorShapeTests {
    @Test func shortGUIDsAreRefusedUntilSharingExists() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let response = try server.post(
            "private", "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"s","recordType":"Note","createShortGUID":true}}]}"#,
            webAuthToken: token)
        #expect(response.status == 400)
        #expect(try response.json()["reason"]?.stringValue?.contains("short GUIDs name shares") == true)
        let lookup = try server.post("private", "records/lookup", #"{"records":[{"recordName":"s"}]}"#, webAuthToken: token)
        #expect(try lookup.json()["records"]?[0]?["serverErrorCode"] == "NOT_FOUND")
    }
}

extension ErrorShapeTests {
    @Test func theHTTPServersOwnErrorsOnAPIPathsAreCloudKitErrors() throws {
        let server = try APITestServer()
        func expectCloudKit(_ response: TestResponse, status: Int, code: String) throws {
            #expect(response.status == status)
            let body = try response.json()
            #expect(body["serverErrorCode"]?.stringValue == code, "\(response.text)")
            #expect(body["uuid"]?.stringValue?.isEmpty == false)
            #expect(body["reason"]?.stringValue?.isEmpty == false)
            #expect(response.header("X-Apple-Request-UUID") == body["uuid"]?.stringValue)
        }
        // The JSON API takes bodies up to 4 MiB; past that, 413 as QUOTA_EXCEEDED.
        let big = "{\"pad\":\"" + String(repeating: "x", count: 4 * 1024 * 1024) + "\"}"
        try expectCloudKit(
            try server.send("POST", server.authorized(server.path("public", "records/query")), body: big),
            status: 413, code: "QUOTA_EXCEEDED")
        let almost = "{\"pad\":\"" + String(repeating: "x", count: 3 * 1024 * 1024) + "\"}"
        let accepted = try server.send("POST", server.authorized(server.path("public", "records/query")), body: almost)
        #expect(accepted.status == 400)  // read whole, then refused for lacking a query
        // A method the endpoint does not take.
        let method = try server.send("DELETE", server.authorized(server.path("public", "records/query")))
        try expectCloudKit(method, status: 405, code: "BAD_REQUEST")
        // A head too large.
        let client = try RawClient(port: server.port)
        try client.send(
            "POST \(server.authorized(server.path("public", "records/query"))) HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: \(String(repeating: "a", count: 20_000))\r\n\r\n"
        )
        try expectCloudKit(try client.readResponse(), status: 431, code: "BAD_REQUEST")
    }
}
