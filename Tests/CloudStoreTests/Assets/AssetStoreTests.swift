import Crypto
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Each ``AssetStore`` through the protocol alone: what staging, committing, discarding, reading
/// and removing leave behind, against files and against a bucket on moto.
@Suite struct AssetStoreTests {
    static let space = EnvironmentKey(container: try! ContainerIdentifier("iCloud.com.example.Tests"), environment: .development)

    /// A store of `backend`, with a folder for its files that lives as long as the test.
    static func store(_ backend: AssetBackend) throws -> (store: any AssetStore, directory: TemporaryDirectory) {
        let directory = try TemporaryDirectory(prefix: "cumulus-assets")
        var configuration = CloudStoreConfiguration(dataDirectory: directory.path)
        configuration.assetStorage = try backend.storage()
        return (CloudStore.makeAssetStore(configuration), directory)
    }

    static func blob(_ count: Int) -> (sha: String, bytes: [UInt8]) {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<count).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return (SHA256.hash(data: bytes).map { String(format: "%02x", $0) }.joined(), bytes)
    }

    @Test(arguments: AssetBackend.allCases)
    func aCommittedBlobReadsBackWholeAndByRange(backend: AssetBackend) throws {
        let (store, _) = try Self.store(backend)
        let (sha, bytes) = Self.blob(300_000)
        let staged = try store.stage(sha, bytes, in: Self.space)
        try store.commit(staged)
        #expect(try store.read(sha, in: Self.space) == bytes)
        #expect(try store.read(sha, range: 10...19, in: Self.space) == Array(bytes[10...19]))
        #expect(
            try store.read(sha, range: 299_990...400_000, in: Self.space) == Array(bytes[299_990...]), "a range past the end stops at it")
        // Committing the same bytes again changes nothing.
        try store.commit(try store.stage(sha, bytes, in: Self.space))
        #expect(try store.read(sha, in: Self.space) == bytes)

        try store.remove(sha, in: Self.space)
        #expect(throws: CloudStoreError.self) { try store.read(sha, in: Self.space) }
        try store.remove(sha, in: Self.space)
    }

    @Test(arguments: AssetBackend.allCases)
    func aDiscardedUploadLeavesNothingUnlessAnotherHoldsTheBlob(backend: AssetBackend) throws {
        let (store, _) = try Self.store(backend)
        let (sha, bytes) = Self.blob(1000)
        store.discard(try store.stage(sha, bytes, in: Self.space), blobIsHeld: false)
        #expect(throws: CloudStoreError.self) { try store.read(sha, in: Self.space) }

        try store.commit(try store.stage(sha, bytes, in: Self.space))
        store.discard(try store.stage(sha, bytes, in: Self.space), blobIsHeld: true)
        #expect(try store.read(sha, in: Self.space) == bytes, "the committed blob stays")
    }

    @Test(arguments: AssetBackend.allCases)
    func aRemovalBetweenStagingAndCommitDoesNotLoseTheBlob(backend: AssetBackend) throws {
        let (store, _) = try Self.store(backend)
        let (sha, bytes) = Self.blob(5000)
        try store.commit(try store.stage(sha, bytes, in: Self.space))
        // A second upload stages; a collection of the first removes the blob; the upload commits.
        let staged = try store.stage(sha, bytes, in: Self.space)
        try store.remove(sha, in: Self.space)
        try store.commit(staged)
        #expect(try store.read(sha, in: Self.space) == bytes)
    }

    @Test func filesKeepTheirPlaceAndS3KeysNameContainerAndEnvironment() throws {
        let (store, directory) = try Self.store(.files)
        let (sha, bytes) = Self.blob(10)
        try store.commit(try store.stage(sha, bytes, in: Self.space))
        let path = "\(directory.path)/containers/iCloud.com.example.Tests/development-assets/\(sha.prefix(2))/\(sha)"
        #expect(FileManager.default.contents(atPath: path).map { [UInt8]($0) } == bytes)
        let folder =
            (try FileManager.default.contentsOfDirectory(
                atPath: "\(directory.path)/containers/iCloud.com.example.Tests/development-assets/\(sha.prefix(2))"))
        #expect(folder == [sha], "no temporary file left")
        #expect(S3AssetStore.key(of: sha, in: Self.space) == "iCloud.com.example.Tests/development/\(sha.prefix(2))/\(sha)")
    }

    @Test func objectsLieWhereTheKeySaysOnTheServer() throws {
        let configuration = try S3TestServer.moto().makeBucket()
        let store = S3AssetStore(configuration)
        let (sha, bytes) = Self.blob(100)
        try store.commit(try store.stage(sha, bytes, in: Self.space))
        let response = try store.send("GET", key: "iCloud.com.example.Tests/development/\(sha.prefix(2))/\(sha)")
        #expect(response.status == 200 && response.body == bytes)
        let production = EnvironmentKey(container: Self.space.container, environment: .production)
        #expect(throws: CloudStoreError.self) { try store.read(sha, in: production) }
    }
}
