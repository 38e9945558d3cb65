import Foundation

/// What a record save does with the assets in its fields: a value with a receipt is accepted
/// only if this server issued the receipt, for this database, for content it holds; a value
/// without one only if the record already holds that content (a client saving back what it
/// fetched), or where the save says who else holds it (a revert to a version the history keeps).
/// Either way the record keeps the content's checksum and size alone — never a
/// `downloadURL` a client sent, which would be served to every reader.
struct AssetReceiptCheck: Sendable {
    let place: AssetTickets.Place
    let signer: OpaqueTokenSigner
    let now: Int64
    /// Content the save may hold without a receipt though the record does not.
    var heldElsewhere: Set<String> = []

    func normalize(_ fields: [String: FieldValue], existing: Record?, reader: any EnvironmentReader) throws -> [String: FieldValue] {
        let held = heldElsewhere.union((existing?.fields.values ?? [:].values).flatMap(\.assets).compactMap(\.contentHash))
        var normalized = fields
        for (name, value) in fields where !value.assets.isEmpty {
            normalized[name] = try value.mappingAssets { try check($0, field: name, held: held, reader: reader) }
        }
        return normalized
    }

    private func check(_ asset: Asset, field: String, held: Set<String>, reader: any EnvironmentReader) throws -> Asset {
        guard let text = asset.receipt else {
            guard let sha = asset.contentHash, held.contains(sha), let blob = try reader.assetBlob(sha) else {
                throw CloudStoreError.badRequest(
                    "Asset field '\(field)' needs the receipt of an upload: ask assets/upload for a URL and post the file there")
            }
            return Self.stored(blob)
        }
        guard let receipt = AssetTickets.receipt(text, with: signer) else {
            throw CloudStoreError.badRequest("Asset field '\(field)' carries a receipt this server did not issue")
        }
        guard receipt.place == place else {
            throw CloudStoreError.badRequest("Asset field '\(field)' carries a receipt of another container, environment or database")
        }
        guard receipt.expires > now else {
            throw CloudStoreError.badRequest("The receipt of asset field '\(field)' has expired; upload the file again")
        }
        if let size = asset.size, size != receipt.size {
            throw CloudStoreError.badRequest("Asset field '\(field)' says \(size) bytes; its receipt says \(receipt.size)")
        }
        if asset.fileChecksum != nil, asset.contentHash != receipt.sha {
            throw CloudStoreError.badRequest("The fileChecksum of asset field '\(field)' does not match its receipt")
        }
        guard let blob = try reader.assetBlob(receipt.sha) else {
            throw CloudStoreError.badRequest("The upload of asset field '\(field)' is no longer held; upload the file again")
        }
        return Self.stored(blob)
    }

    /// An asset as records keep it: the content's checksum and size.
    static func stored(_ blob: AssetBlob) -> Asset {
        Asset(fileChecksum: checksum(of: blob.sha), size: blob.size)
    }

    /// The base64 SHA-256 clients see as `fileChecksum`.
    static func checksum(of sha: String) -> String {
        var bytes: [UInt8] = []
        var index = sha.startIndex
        while index < sha.endIndex {
            let next = sha.index(index, offsetBy: 2)
            bytes.append(UInt8(sha[index..<next], radix: 16) ?? 0)
            index = next
        }
        return Data(bytes).base64EncodedString()
    }
}
