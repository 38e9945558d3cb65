import Crypto
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// An asset's whole way through a store — upload URL, upload, record save, download, and
/// collection once no record holds it — with its bytes in files and in a bucket on moto.
@Suite struct AssetUploadTests {
    /// Uploads `content` for record `name`'s `file` field and saves the record.
    static func save(_ content: [UInt8], as name: String, in temporary: TemporaryStore) throws -> UploadedAsset {
        let database = try temporary.database()
        let ticket = try #require(
            try database.assetUploadTickets([AssetUploadRequest(recordName: name, recordType: "Note", fieldName: "file")]).first)
        let uploaded = try temporary.store.uploadAsset(ticket: ticket.ticket, content: content)
        try database.create(
            "Note", name, ["file": .asset(Asset(fileChecksum: uploaded.fileChecksum, size: uploaded.size, receipt: uploaded.receipt))])
        return uploaded
    }

    /// The content record `name`'s `file` field downloads as.
    static func download(_ name: String, in temporary: TemporaryStore) throws -> AssetContent {
        var database = try temporary.database()
        database.assetBaseURL = ""
        let result = try #require(try database.lookup([RecordLookup(name)]).first)
        guard case .record(let record) = result else { throw TestFailure("no record \(name): \(result)") }
        let url = try #require(record.fields["file"]?.assets.first?.downloadURL)
        let ticket = try #require(url.split(separator: "/").dropFirst(3).first)
        return try temporary.store.assetContent(ticket: String(ticket))
    }

    @Test(arguments: AssetBackend.allCases, [0, 100, 2 * 1024 * 1024])
    func anAssetRoundTripsAndGoesWithItsRecord(backend: AssetBackend, size: Int) throws {
        let storage = try backend.storage()
        let temporary = try TemporaryStore { $0.assetStorage = storage }
        try temporary.store.checkAssetStore()
        // Half random, half repetitive: large contents are stored compressed.
        let content = (0..<size).map { index in index < size / 2 ? UInt8.random(in: 0...255) : UInt8(index % 7) }
        let uploaded = try Self.save(content, as: "n1", in: temporary)
        #expect(uploaded.fileChecksum == Data(SHA256.hash(data: content)).base64EncodedString())
        let downloaded = try Self.download("n1", in: temporary)
        #expect(downloaded.bytes == content, "byte for byte")
        #expect(downloaded.fileChecksum == uploaded.fileChecksum)

        let sha = SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined()
        let space = EnvironmentKey(container: temporary.container, environment: .development)
        #expect(try temporary.store.assetStore.read(sha, in: space).isEmpty == false || size == 0)
        _ = try temporary.database().modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "n1")]))
        #expect(try temporary.store.collectUnreferencedAssets(temporary.container, .development, createdBefore: .max) == 0, "in the trash")
        _ = try temporary.store.environment(temporary.container, .development).write { try $0.forgetVersions(before: .max) }
        #expect(try temporary.store.collectUnreferencedAssets(temporary.container, .development, createdBefore: .max) == 1)
        #expect(throws: CloudStoreError.self, "the blob went with its last record, once retention forgot it") {
            try temporary.store.assetStore.read(sha, in: space)
        }
    }

    @Test(arguments: AssetBackend.allCases)
    func anUploadOverTheQuotaLeavesNoBlob(backend: AssetBackend) throws {
        let storage = try backend.storage()
        let temporary = try TemporaryStore { $0.assetStorage = storage }
        try temporary.store.setLimits(
            EnvironmentLimits(requestsPerSecond: 1000, burst: 1000, storageBytes: 10_000), of: temporary.container, .development)
        let database = try temporary.database()
        let ticket = try #require(try database.assetUploadTickets([AssetUploadRequest(recordType: "Note", fieldName: "file")]).first)
        let content = (0..<20_000).map { _ in UInt8.random(in: 0...255) }
        #expect(throws: CloudStoreError.self) { try temporary.store.uploadAsset(ticket: ticket.ticket, content: content) }
        let sha = SHA256.hash(data: content).map { String(format: "%02x", $0) }.joined()
        let space = EnvironmentKey(container: temporary.container, environment: .development)
        #expect(throws: CloudStoreError.self, "the refused bytes were not kept") { try temporary.store.assetStore.read(sha, in: space) }
    }
}
