import Foundation

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

extension Asset {
    /// The SHA-256 of the content, in hex, as storage names its blob; `nil` unless
    /// `fileChecksum` is the base64 SHA-256 this server hands out.
    var contentHash: String? {
        guard let checksum = fileChecksum, let digest = Data(base64Encoded: checksum), digest.count == 32 else { return nil }
        return SecureToken.hexString(Array(digest))
    }
}

extension FieldValue {
    /// Whether the value is an asset or a list holding one: asked of every field of every
    /// record read, so it makes no array.
    var holdsAssets: Bool {
        switch self {
        case .asset: true
        case .list(.asset, let elements): !elements.isEmpty
        default: false
        }
    }

    /// The assets this value holds: itself, or the elements of an asset list.
    var assets: [Asset] {
        switch self {
        case .asset(let asset): [asset]
        case .list(.asset, let elements): elements.compactMap { if case .asset(let asset) = $0 { asset } else { nil } }
        default: []
        }
    }

    /// The value with each asset it holds (itself, or the elements of an asset list) replaced
    /// by `transform`'s; any other value as it is.
    func mappingAssets(_ transform: (Asset) throws -> Asset) rethrows -> FieldValue {
        switch self {
        case .asset(let asset):
            return .asset(try transform(asset))
        case .list(.asset, let elements):
            return .list(
                .asset,
                try elements.map { element in
                    guard case .asset(let asset) = element else { return element }
                    return .asset(try transform(asset))
                })
        default:
            return self
        }
    }
}

extension Record {
    /// Whether any field holds an asset.
    var holdsAssets: Bool { fields.values.contains(where: \.holdsAssets) }
}
