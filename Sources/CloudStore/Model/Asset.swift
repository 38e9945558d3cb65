/// An asset field value: CloudKit's Asset dictionary. The bytes themselves live in the asset store.
public struct Asset: Hashable, Sendable {
    /// Checksum of the uploaded file, from the upload step.
    public var fileChecksum: String?
    /// Size of the file in bytes.
    public var size: Int64?
    /// Checksum of the wrapping key (private database).
    public var referenceChecksum: String?
    /// Key the asset is encrypted with (private database).
    public var wrappingKey: String?
    /// Receipt of the upload.
    public var receipt: String?
    /// Where the asset can be fetched; filled in on the way out.
    public var downloadURL: String?

    /// Creates an asset value.
    public init(
        fileChecksum: String? = nil, size: Int64? = nil, referenceChecksum: String? = nil, wrappingKey: String? = nil,
        receipt: String? = nil, downloadURL: String? = nil
    ) {
        self.fileChecksum = fileChecksum
        self.size = size
        self.referenceChecksum = referenceChecksum
        self.wrappingKey = wrappingKey
        self.receipt = receipt
        self.downloadURL = downloadURL
    }
}
