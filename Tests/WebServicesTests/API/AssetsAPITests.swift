import CloudKitWire
import Crypto
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import CloudStore
@testable import WebServices

/// Assets as CloudKit JS and MistKit move them: `assets/upload` for a URL on this server, the
/// bytes posted there for a `singleFile` receipt, `records/modify` with it, and the record's
/// `downloadURL` (written by the server) to read the bytes back, whole or by range.
@Suite struct AssetsAPITests {
    static let schema = #"title STRING QUERYABLE, image ASSET"#

    /// Uploads `content` for `record`'s `image` field and returns the `singleFile` dictionary.
    static func upload(
        _ server: APITestServer, _ token: String, _ content: [UInt8], record: String = "a1",
        database: String = "public"
    ) throws -> JSONValue {
        let asked = try server.post(
            database, "assets/upload",
            #"{"tokens":[{"recordName":"\#(record)","recordType":"Note","fieldName":"image"}]}"#, webAuthToken: token)
        #expect(asked.status == 200, "\(asked.text)")
        let url = try #require(try asked.json()["tokens"]?[0]?["url"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:\(server.port)/assets/1/upload/"), "the upload URL is on this server")
        let posted = try HTTPTestClient.send(
            port: server.port, method: "POST", target: String(url.dropFirst("http://127.0.0.1:\(server.port)".count)), body: content,
            headers: ["Content-Type": "application/octet-stream"])
        #expect(posted.status == 200, "\(posted.text)")
        return try #require(try posted.json()["singleFile"])
    }

    /// Saves `record` with `image` set to `value` and returns the saved record's dictionary.
    static func save(
        _ server: APITestServer, _ token: String, _ value: JSONValue, record: String = "a1", database: String = "public",
        operation: String = "forceReplace"
    ) throws -> JSONValue {
        let body: JSONValue = [
            "operations": [
                [
                    "operationType": .string(operation),
                    "record": [
                        "recordName": .string(record), "recordType": "Note",
                        "fields": ["title": ["value": "with a file"], "image": ["value": value]],
                    ],
                ]
            ]
        ]
        let response = try server.post(database, "records/modify", String(decoding: body.serialized(), as: UTF8.self), webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
        return try #require(try response.json()["records"]?[0])
    }

    /// GETs a `downloadURL` with `${f}` replaced by a file name.
    static func download(_ server: APITestServer, _ url: String, headers: [String: String] = [:]) throws -> APIResponse {
        let target = String(url.replacingOccurrences(of: "${f}", with: "photo.jpg").dropFirst("http://127.0.0.1:\(server.port)".count))
        return try HTTPTestClient.send(port: server.port, method: "GET", target: target, body: nil, headers: headers)
    }

    // Through moto (in memory, in Python) up to 10 MiB: the largest size costs seconds there and
    // crosses no other path of the client.
    static let roundTrips: [(AssetBackend, Int)] = [
        (.files, 0), (.files, 1), (.files, 10 << 20), (.files, 50 << 20), (.moto, 0), (.moto, 1), (.moto, 10 << 20),
    ]

    @Test(arguments: roundTrips)
    func aFileRoundTripsByteForByte(backend: AssetBackend, size: Int) throws {
        let storage = try backend.storage()
        let server = try APITestServer { $0.assetStorage = storage }
        try server.defineNote(Self.schema)
        let token = try server.signIn()
        var generator = SystemRandomNumberGenerator()
        // Half random, half repetitive: both the stored-as-is and the compressed paths are crossed.
        let content = (0..<size).map { index in index < size / 2 ? UInt8.random(in: 0...255, using: &generator) : UInt8(index % 7) }
        let singleFile = try Self.upload(server, token, content)
        #expect(singleFile["size"] == .integer(Int64(size)))
        #expect(singleFile["fileChecksum"]?.stringValue == Data(SHA256Digest.of(content)).base64EncodedString())
        let saved = try Self.save(server, token, singleFile)
        #expect(saved["serverErrorCode"] == nil, "\(saved)")
        let url = try #require(saved["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        #expect(url.contains("/${f}"), "CloudKit's file-name placeholder")
        let fetched = try Self.download(server, url)
        #expect(fetched.status == 200 && fetched.body.count == size)
        #expect(fetched.body == content, "byte-identical")
        #expect(saved["fields"]?["image"]?["value"]?["receipt"] == nil, "receipts are not handed back to readers")
    }

    @Test(arguments: AssetBackend.allCases)
    func aFileOverTheLimitIsRefusedAndRangesAreServed(backend: AssetBackend) throws {
        let storage = try backend.storage()
        let server = try APITestServer {
            $0.maximumAssetBytes = 1024
            $0.assetStorage = storage
        }
        try server.defineNote(Self.schema)
        let token = try server.signIn()
        let asked = try server.post(
            "public", "assets/upload", #"{"tokens":[{"recordType":"Note","fieldName":"image"}]}"#, webAuthToken: token)
        let answer = try asked.json()["tokens"]?[0]
        #expect(answer?["recordName"]?.stringValue?.isEmpty == false, "a record name is made when none is given")
        let url = try #require(answer?["url"]?.stringValue)
        let target = String(url.dropFirst("http://127.0.0.1:\(server.port)".count))
        let tooLarge = try HTTPTestClient.send(
            port: server.port, method: "POST", target: target, body: [UInt8](repeating: 1, count: 1025), headers: [:])
        #expect(try tooLarge.status == 413 && tooLarge.json()["serverErrorCode"] == "QUOTA_EXCEEDED", "\(tooLarge.text)")

        let content = (0..<1024).map { UInt8($0 % 251) }
        let saved = try Self.save(server, token, try Self.upload(server, token, content))
        let url2 = try #require(saved["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        let first = try Self.download(server, url2, headers: ["Range": "bytes=0-9"])
        #expect(first.status == 206 && first.body == Array(content[0...9]) && first.header("Content-Range") == "bytes 0-9/1024")
        let tail = try Self.download(server, url2, headers: ["Range": "bytes=-5"])
        #expect(tail.status == 206 && tail.body == Array(content[1019...]))
        let open = try Self.download(server, url2, headers: ["Range": "bytes=1000-"])
        #expect(open.status == 206 && open.body == Array(content[1000...]))
        let outside = try Self.download(server, url2, headers: ["Range": "bytes=5000-6000"])
        #expect(outside.status == 416 && outside.header("Content-Range") == "bytes */1024")
        let whole = try Self.download(server, url2)
        #expect(whole.status == 200 && whole.header("Accept-Ranges") == "bytes" && whole.body == content)
    }

    @Test func onlyReceiptsThisServerIssuedForThisDatabaseAreTaken() throws {
        let server = try APITestServer()
        try server.defineNote(Self.schema)
        let token = try server.signIn()
        let singleFile = try Self.upload(server, token, Array("hello".utf8))
        var forged = singleFile
        forged = .object(
            JSONObject([
                ("fileChecksum", singleFile["fileChecksum"]!), ("size", .integer(5)),
                ("receipt", .string(String((singleFile["receipt"]?.stringValue ?? "").dropLast(2)) + "AA")),
            ]))
        #expect(try Self.save(server, token, forged)["serverErrorCode"] == "BAD_REQUEST", "a tampered receipt")
        let noReceipt: JSONValue = ["fileChecksum": singleFile["fileChecksum"]!, "size": 5, "downloadURL": "https://evil.example/x"]
        let refused = try Self.save(server, token, noReceipt)
        #expect(refused["serverErrorCode"] == "BAD_REQUEST" && refused["reason"]?.stringValue?.contains("receipt") == true)
        let inPrivate = try Self.save(server, token, singleFile, database: "private")
        #expect(inPrivate["serverErrorCode"] == "BAD_REQUEST", "a receipt of the public database is not one of the private database")

        // A client's downloadURL is never stored: readers get the server's.
        var withURL = singleFile.objectValue!
        withURL["downloadURL"] = "https://evil.example/steal"
        let saved = try Self.save(server, token, .object(withURL))
        let url = try #require(saved["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        #expect(url.hasPrefix("http://127.0.0.1:\(server.port)/assets/1/download/"))
        let world = try server.post("public", "records/lookup", #"{"records":[{"recordName":"a1"}]}"#)
        #expect(
            try world.json()["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue?.hasPrefix("http://127.0.0.1")
                == true)

        // Saving back what was fetched keeps the asset without a new upload.
        let fetched = try #require(try world.json()["records"]?[0]?["fields"]?["image"]?["value"])
        let again = try Self.save(server, token, fetched, operation: "forceUpdate")
        #expect(again["serverErrorCode"] == nil, "\(again)")

        // A tampered download URL, and one of a record that no longer holds the file.
        let tampered = try Self.download(server, url.replacingOccurrences(of: "/download/", with: "/download/x"))
        #expect(tampered.status == 404)
        _ = try Self.save(server, token, try Self.upload(server, token, Array("other".utf8)))
        #expect(try Self.download(server, url).status == 404, "the record holds other content now")
    }

    @Test(arguments: AssetBackend.allCases)
    func aBlobSharedByTwoRecordsOutlivesOneAndGoesWithBoth(backend: AssetBackend) throws {
        let storage = try backend.storage()
        let server = try APITestServer { $0.assetStorage = storage }
        try server.defineNote(Self.schema)
        let token = try server.signIn()
        let content = (0..<4096).map { UInt8($0 % 13) }
        _ = try Self.save(server, token, try Self.upload(server, token, content), record: "first")
        let reref = try server.post(
            "public", "assets/rereference",
            #"{"assets":[{"recordName":"first","fieldName":"image"},{"recordName":"none","fieldName":"image"}]}"#,
            webAuthToken: token)
        let asset = try #require(try reref.json()["assets"]?[0])
        #expect(asset["receipt"]?.stringValue != nil)
        #expect(try reref.json()["assets"]?[1]?["serverErrorCode"] == "NOT_FOUND", "\(reref.text)")
        let second = try Self.save(server, token, asset, record: "second")
        let secondURL = try #require(second["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        let blobs = "\(server.directory)/containers/\(server.container)/development-assets"
        let space = EnvironmentKey(container: server.container, environment: .development)
        let sha = SHA256Digest.of(content).map { String(format: "%02x", $0) }.joined()
        // Files are counted on disk; a bucket is asked for the one blob.
        func blobCount() -> Int {
            guard backend == .files else { return (try? server.store.assetStore.read(sha, in: space)) == nil ? 0 : 1 }
            return (FileManager.default.enumerator(atPath: blobs)?.allObjects as? [String] ?? []).filter { $0.count > 60 }.count
        }
        #expect(blobCount() == 1, "one file for both records")

        _ = try server.post(
            "public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"first"}}]}"#,
            webAuthToken: token)
        // Collected as if every receipt had expired.
        func collect() throws -> Int { try server.store.collectUnreferencedAssets(server.container, .development, createdBefore: .max) }
        #expect(try collect() == 0)
        #expect(try Self.download(server, secondURL).body == content, "the other record still holds it")
        _ = try server.post(
            "public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"second"}}]}"#,
            webAuthToken: token)
        #expect(try collect() == 0, "the deleted records in the trash hold it")
        _ = try server.store.environment(server.container, .development).write { try $0.forgetVersions(before: .max) }
        #expect(try collect() == 1)
        #expect(blobCount() == 0, "gone with both, once retention forgot them")
    }

    @Test func imagesAreServedInlineAndEverythingElseOnlyAsADownload() throws {
        let server = try APITestServer()
        try server.defineNote(Self.schema)
        let token = try server.signIn()
        let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 0, count: 32)
        let image = try Self.save(server, token, try Self.upload(server, token, png, record: "picture"), record: "picture")
        let imageURL = try #require(image["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        #expect(imageURL.hasSuffix("/${f}?type=image%2Fpng"))
        let shown = try Self.download(server, imageURL)
        #expect(shown.header("Content-Type") == "image/png" && shown.header("Content-Disposition") == nil)
        #expect(shown.header("X-Content-Type-Options") == "nosniff")

        let html = Array("<html><script>alert(document.cookie)</script></html>".utf8)
        let page = try Self.save(server, token, try Self.upload(server, token, html, record: "page"), record: "page")
        let pageURL = try #require(page["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue)
        let fetched = try Self.download(server, pageURL)
        #expect(fetched.body == html)
        #expect(
            fetched.header("Content-Type") == "application/octet-stream" && fetched.header("Content-Disposition") == "attachment",
            "an upload never renders on this server's origin")
        #expect(fetched.header("Content-Security-Policy")?.contains("sandbox") == true)
    }

    @Test func blobsCountTowardTheStorageQuota() throws {
        let server = try APITestServer()
        try server.defineNote(Self.schema)
        let token = try server.signIn()
        try server.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 1000, burst: 1000, storageBytes: 10_000), of: server.container, .development)
        let random = (0..<6_000).map { _ in UInt8.random(in: 0...255) }
        _ = try Self.save(server, token, try Self.upload(server, token, random))
        let asked = try server.post(
            "public", "assets/upload", #"{"tokens":[{"recordType":"Note","fieldName":"image"}]}"#, webAuthToken: token)
        let url = try #require(try asked.json()["tokens"]?[0]?["url"]?.stringValue)
        let second = try HTTPTestClient.send(
            port: server.port, method: "POST", target: String(url.dropFirst("http://127.0.0.1:\(server.port)".count)),
            body: (0..<6_000).map { _ in UInt8.random(in: 0...255) }, headers: [:])
        #expect(try second.status == 413 && second.json()["serverErrorCode"] == "QUOTA_EXCEEDED", "\(second.text)")
        let blobs = "\(server.directory)/containers/\(server.container)/development-assets"
        #expect(
            (FileManager.default.enumerator(atPath: blobs)?.allObjects as? [String] ?? []).filter { $0.count > 60 }.count == 1,
            "the refused file was not kept")
    }

    @Test func uploadsNeedSomeoneWhoMayWriteAndTheUploadURLAnswersAnyOrigin() throws {
        let server = try APITestServer()
        try server.defineNote(Self.schema)
        let world = try server.post("public", "assets/upload", #"{"tokens":[{"recordType":"Note","fieldName":"image"}]}"#)
        #expect(try world.status == 421 && world.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        let forged = try HTTPTestClient.send(
            port: server.port, method: "POST", target: "/assets/1/upload/bogus", body: [1, 2, 3], headers: [:])
        #expect(try forged.status == 404 && forged.json()["serverErrorCode"] == "NOT_FOUND")
        let preflight = try HTTPTestClient.send(
            port: server.port, method: "OPTIONS", target: "/assets/1/upload/bogus", body: nil,
            headers: ["Origin": "https://app.example.com", "Access-Control-Request-Method": "POST"])
        #expect(preflight.status == 204 && preflight.header("Access-Control-Allow-Origin") == "*")
    }
}

/// SHA-256 for the tests' expectations.
enum SHA256Digest {
    static func of(_ bytes: [UInt8]) -> [UInt8] {
        var hasher = Crypto.SHA256()
        hasher.update(data: bytes)
        return Array(hasher.finalize())
    }
}
