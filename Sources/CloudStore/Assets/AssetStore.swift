/// Where the bytes of asset blobs live, apart from their rows (size, reference counts), which
/// stay in the environment's database. Blobs are named by the SHA-256 of their content and are
/// written once; the store never sees whether a blob is compressed.
///
/// An upload stages its bytes first, outside any transaction (the slow part), then commits
/// them with the environment's writer held, after the blob's row is written; a removal also
/// happens with the writer held. Because the two never cross, a blob a row names is always
/// complete in the store.
protocol AssetStore: Sendable {
    /// Writes a blob's bytes where ``commit(_:)`` can make them the blob.
    /// - Parameters:
    ///   - sha: The SHA-256 of the content, in hex.
    ///   - bytes: The bytes to keep, as ``BlobEncoding/prepare(_:)`` made them.
    ///   - space: The container's environment the blob belongs to.
    func stage(_ sha: String, _ bytes: [UInt8], in space: EnvironmentKey) throws -> StagedBlob

    /// Makes a staged blob present under its name. Called with the environment's writer held,
    /// after the blob's row is written.
    func commit(_ staged: StagedBlob) throws

    /// Drops what staging left behind for an upload that was not committed. Called with the
    /// environment's writer held when it can be taken.
    /// - Parameter blobIsHeld: Whether a row names the blob (another upload of the same bytes
    ///   committed), so that the blob itself must stay.
    func discard(_ staged: StagedBlob, blobIsHeld: Bool)

    /// A blob's bytes, as staged.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the blob is missing.
    func read(_ sha: String, in space: EnvironmentKey) throws -> [UInt8]

    /// Part of a blob's bytes: those from `range.lowerBound` through `range.upperBound`, fewer
    /// when the blob ends before.
    func read(_ sha: String, range: ClosedRange<Int64>, in space: EnvironmentKey) throws -> [UInt8]

    /// Removes a blob. Called with the environment's writer held, after its row was removed;
    /// removing a blob that is not there succeeds.
    func remove(_ sha: String, in space: EnvironmentKey) throws

    /// Checks that the store can be used now.
    /// - Throws: ``CloudStoreError/internalError(_:)`` saying what the store refused, or
    ///   ``CloudStoreError/tryAgainLater(_:)`` when it did not answer.
    func checkUsable() throws
}

/// Bytes an ``AssetStore`` staged for one blob, waiting to be committed or discarded.
struct StagedBlob: Sendable {
    /// The SHA-256 of the content, in hex.
    var sha: String
    /// The environment the blob belongs to.
    var space: EnvironmentKey
    /// Where the store put the bytes meanwhile, such as a temporary file; `nil` when they went
    /// straight to their place.
    var location: String?
    /// The bytes, kept by stores that may need to write them again at commit.
    var bytes: [UInt8] = []
}
