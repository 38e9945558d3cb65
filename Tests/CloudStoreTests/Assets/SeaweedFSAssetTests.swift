import Crypto
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// The S3 asset store against SeaweedFS (`weed mini` on 127.0.0.1, data in a temporary
/// directory), which, unlike moto, checks every signature against the one identity it knows.
@Suite struct SeaweedFSAssetTests {
    @Test func assetsGoThroughSeaweedFSAndWrongCredentialsAreAClearRefusal() throws {
        let weed = try S3TestServer(.seaweedFS)
        defer { weed.stop() }
        let bucket = try weed.makeBucket()
        let temporary = try TemporaryStore { $0.assetStorage = .s3(bucket) }
        try temporary.store.checkAssetStore()

        let content = (0..<(3 * 1024 * 1024)).map { _ in UInt8.random(in: 0...255) }
        let uploaded = try AssetUploadTests.save(content, as: "big", in: temporary)
        #expect(uploaded.fileChecksum == Data(SHA256.hash(data: content)).base64EncodedString())
        #expect(try AssetUploadTests.download("big", in: temporary).bytes == content, "byte for byte through SeaweedFS")
        let sha = SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined()
        let space = EnvironmentKey(container: temporary.container, environment: .development)
        #expect(try temporary.store.assetStore.read(sha, range: 1000...1999, in: space) == Array(content[1000...1999]))

        // The same bucket with a wrong secret: refused by the server, told as an error naming
        // the refusal and never the secret.
        var wrong = bucket
        wrong.secretAccessKey = "not-the-secret-\(UUID().uuidString)"
        let refused = try TemporaryStore { $0.assetStorage = .s3(wrong) }
        do {
            try refused.store.checkAssetStore()
            Issue.record("a wrong secret must be refused")
        } catch let error as CloudStoreError {
            #expect(error.reason.contains("refused the credentials"), "\(error)")
            #expect(!error.reason.contains(wrong.secretAccessKey) && !error.reason.contains(bucket.secretAccessKey))
        }
        let database = try refused.database()
        let ticket = try #require(try database.assetUploadTickets([AssetUploadRequest(recordType: "Note", fieldName: "file")]).first)
        do {
            _ = try refused.store.uploadAsset(ticket: ticket.ticket, content: Array("hello".utf8))
            Issue.record("an upload with a wrong secret must fail")
        } catch let error as CloudStoreError {
            guard case .internalError(let reason) = error else { Issue.record("unexpected \(error)"); return }
            #expect(reason.contains("refused the credentials") && reason.contains("SignatureDoesNotMatch"), "\(reason)")
        }
        #expect(try AssetUploadTests.download("big", in: temporary).bytes == content, "the right credentials still work")
    }
}
