import CloudKitWire
import Crypto
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import CloudStore
@testable import WebServices

/// Asset traffic under the same rules as the JSON API: uploads and downloads pass the request
/// rate and count toward the month's transfer, an upload URL takes one file, and a download URL
/// ends with the session it was handed to.
@Suite struct AssetTrafficAPITests {
    /// An upload URL's target (path and ticket) for the test user's record `record`.
    static func uploadTarget(_ server: APITestServer, _ token: String, record: String = "a1") throws -> String {
        let asked = try server.post(
            "public", "assets/upload",
            #"{"tokens":[{"recordName":"\#(record)","recordType":"Note","fieldName":"image"}]}"#, webAuthToken: token)
        let url = try #require(try asked.json()["tokens"]?[0]?["url"]?.stringValue, "\(asked.text)")
        return String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
    }

    static func post(_ server: APITestServer, _ target: String, _ content: [UInt8]) throws -> APIResponse {
        try HTTPTestClient.send(
            port: server.port, method: "POST", target: target, body: content, headers: ["Content-Type": "application/octet-stream"])
    }

    /// Saves record `a1` with a file of `size` bytes; returns the content and its `downloadURL`.
    static func savedFile(_ server: APITestServer, _ token: String, size: Int) throws -> (content: [UInt8], url: String) {
        let content = (0..<size).map { _ in UInt8.random(in: 0...255) }
        let saved = try AssetsAPITests.save(server, token, try AssetsAPITests.upload(server, token, content))
        return (content, try #require(saved["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue, "\(saved)"))
    }

    static func transfer(_ server: APITestServer) throws -> Int64 {
        try server.store.requestLog.flush()
        return try server.store.requestLog.transferThisMonth(server.container, .development)
    }

    @Test func uploadsAndDownloadsPastTheRateAreThrottledAsTheAPIIs() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let (_, url) = try Self.savedFile(server, token, size: 5000)
        let targets = [try Self.uploadTarget(server, token, record: "b1"), try Self.uploadTarget(server, token, record: "b2")]
        // The review's proof used one request a second; a slower rate makes the second request
        // of the burst late for the next token however slow the machine.
        let limits = EnvironmentLimits(requestsPerSecond: 0.001, burst: 1)
        try server.store.setLimits(limits, of: server.container, .development)
        #expect(try Self.post(server, targets[0], Array("first".utf8)).status == 200)
        let upload = try Self.post(server, targets[1], Array("second".utf8))
        #expect(try upload.status == 429 && upload.json()["serverErrorCode"] == "THROTTLED", "\(upload.text)")
        #expect(try upload.json()["retryAfter"] != nil, "when to try again, as the JSON API says it")

        try server.store.setLimits(limits, of: server.container, .development)
        #expect(try AssetsAPITests.download(server, url).status == 200)
        let download = try AssetsAPITests.download(server, url)
        #expect(try download.status == 429 && download.json()["serverErrorCode"] == "THROTTLED", "\(download.text)")
        let api = try server.post("public", "records/lookup", #"{"records":[{"recordName":"a1"}]}"#)
        #expect(api.status == 429, "the JSON API answers the same")
    }

    @Test func assetBytesCountTowardTheMonthsTransferAndADownloadPastItIsRefused() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let size = 200_000
        let before = try Self.transfer(server)
        let (content, url) = try Self.savedFile(server, token, size: size)
        let afterUpload = try Self.transfer(server)
        #expect(afterUpload - before >= Int64(size), "the upload's bytes count: \(before) → \(afterUpload)")
        let fetched = try AssetsAPITests.download(server, url)
        #expect(fetched.status == 200 && fetched.body == content)
        let afterDownload = try Self.transfer(server)
        #expect(afterDownload - afterUpload >= Int64(size), "the download's bytes count: \(afterUpload) → \(afterDownload)")

        // Room for one more download, which takes the month past its transfer.
        try server.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 1000, burst: 1000, transferBytesPerMonth: afterDownload + Int64(size / 2)),
            of: server.container, .development)
        #expect(try AssetsAPITests.download(server, url).status == 200)
        _ = try Self.transfer(server)
        let refused = try AssetsAPITests.download(server, url)
        #expect(try refused.status == 413 && refused.json()["serverErrorCode"] == "QUOTA_EXCEEDED", "\(refused.text)")
        let upload = try Self.post(server, try Self.uploadTargetPastQuota(server, token), Array("more".utf8))
        #expect(try upload.status == 413 && upload.json()["serverErrorCode"] == "QUOTA_EXCEEDED", "\(upload.text)")
    }

    /// An upload URL asked for before the quota is used up (asking then is refused too).
    static func uploadTargetPastQuota(_ server: APITestServer, _ token: String) throws -> String {
        let ticket = try #require(
            try server.store.database(server.container, .development, .public, as: .operator())
                .assetUploadTickets([AssetUploadRequest(recordType: "Note", fieldName: "image")]).first)
        return "/assets/1/upload/\(ticket.ticket)"
    }

    @Test func anUploadURLTakesOneFile() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let target = try Self.uploadTarget(server, token)
        #expect(try Self.post(server, target, Array("the first file".utf8)).status == 200)
        let second = Array("a second file".utf8)
        let refused = try Self.post(server, target, second)
        #expect(try refused.status == 400 && refused.json()["serverErrorCode"] == "BAD_REQUEST", "\(refused.text)")
        #expect(try refused.json()["reason"]?.stringValue?.contains("used already") == true, "\(refused.text)")
        #expect(try refused.json()["singleFile"] == nil, "no receipt")

        let sha = SHA256.hash(data: second).map { String(format: "%02x", $0) }.joined()
        let storage = try server.store.environment(server.container, .development)
        #expect(try storage.read { try $0.assetBlob(sha) } == nil, "no blob row for the second file")
        #expect(throws: CloudStoreError.self, "its bytes were not kept") {
            try server.store.assetStore.read(sha, in: EnvironmentKey(container: server.container, environment: .development))
        }
    }

    @Test func aDownloadURLEndsWithTheSessionItWasHandedTo() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let user = try #require(try server.store.user(named: server.userName, in: server.container))
        var token = try server.signIn()
        let (content, _) = try Self.savedFile(server, token, size: 100)
        func url(_ token: String) throws -> String {
            let found = try server.post("public", "records/lookup", #"{"records":[{"recordName":"a1"}]}"#, webAuthToken: token)
            return try #require(try found.json()["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        }
        let ends: [(String, () throws -> Void)] = [
            ("sign-out everywhere", { _ = try server.store.signOutEverywhere(user.userRecordName, in: server.container) }),
            ("a new password", { try server.store.setPassword(server.password, of: user.userRecordName, in: server.container) }),
        ]
        for (what, end) in ends {
            let stolen = try url(token)
            #expect(try AssetsAPITests.download(server, stolen).body == content)
            try end()
            let refused = try AssetsAPITests.download(server, stolen)
            #expect(try refused.status == 404 && refused.json()["serverErrorCode"] == "NOT_FOUND", "after \(what): \(refused.text)")
            token = try server.signIn()
            #expect(try AssetsAPITests.download(server, try url(token)).body == content, "a new session gets a URL that works")
        }
        let world = try server.post("public", "records/lookup", #"{"records":[{"recordName":"a1"}]}"#)
        let worldURL = try #require(try world.json()["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        let stolen = try url(token)
        try server.store.removeUser(user.userRecordName, from: server.container)
        #expect(try AssetsAPITests.download(server, stolen).status == 404, "after removal")
        #expect(try AssetsAPITests.download(server, worldURL).body == content, "a URL of the world's needs no session")
    }

    @Test func apiAnswersAreNotStored() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let caller = try server.send("GET", server.authorized(server.path("private", "users/caller"), webAuthToken: token))
        #expect(caller.status == 200 && caller.header("X-Apple-CloudKit-Web-Auth-Token") != nil)
        let (_, url) = try Self.savedFile(server, token, size: 10)
        let answers: [(String, APIResponse)] = [
            ("users/caller", caller),
            ("an error", try server.post("public", "records/lookup", "not json")),
            ("no endpoint", try server.send("GET", server.authorized("/database/1/\(server.container)/development/public/nothing"))),
            ("a server error", try server.send("PUT", server.authorized(server.path("public", "records/query")))),
            ("tokens/create", try server.post("public", "tokens/create", "{}", webAuthToken: token)),
            ("an upload", try Self.post(server, try Self.uploadTarget(server, token, record: "c1"), [1, 2, 3])),
            ("a used upload URL", try Self.post(server, "/assets/1/upload/nonsense", [1])),
            ("a download", try AssetsAPITests.download(server, url)),
            ("a range", try AssetsAPITests.download(server, url, headers: ["Range": "bytes=0-1"])),
            ("an unknown courier token", try server.send("GET", "/webcourier/1/aps?tok=nothing")),
        ]
        for (what, answer) in answers {
            #expect(answer.header("Cache-Control") == "no-store, private", "\(what): \(answer.status)")
        }
    }
}
