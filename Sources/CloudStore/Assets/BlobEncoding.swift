import CZlib
import Crypto

/// How an asset's content becomes a blob's bytes and back: compressed with zlib when that saves
/// at least a tenth (text, JSON, uncompressed images), kept as it is otherwise (JPEG, video,
/// archives). The same for every ``AssetStore``.
enum BlobEncoding {
    /// The content's SHA-256 in hex, and the bytes to store.
    static func prepare(_ content: [UInt8]) -> (sha: String, stored: [UInt8], compressed: Bool) {
        let sha = SecureToken.hexString(Array(SHA256.hash(data: content)))
        if content.count >= 64, let deflated = deflate(content), deflated.count <= content.count - content.count / 10 {
            return (sha, deflated, true)
        }
        return (sha, content, false)
    }

    /// A blob's content from its stored bytes, inflated when it was stored compressed.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the bytes do not inflate to the
    ///   content's size.
    static func content(of blob: AssetBlob, stored bytes: [UInt8]) throws -> [UInt8] {
        guard blob.compressed else { return bytes }
        guard let content = inflate(bytes, size: Int(blob.size)) else {
            throw CloudStoreError.internalError("The file of blob \(blob.sha) is damaged")
        }
        return content
    }

    private static func deflate(_ bytes: [UInt8]) -> [UInt8]? {
        var length = compressBound(uLong(bytes.count))
        var output = [UInt8](repeating: 0, count: Int(length))
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in compress2(out.baseAddress, &length, input.baseAddress, uLong(input.count), 6) }
        }
        guard status == Z_OK else { return nil }
        output.removeLast(output.count - Int(length))
        return output
    }

    private static func inflate(_ bytes: [UInt8], size: Int) -> [UInt8]? {
        var length = uLongf(size)
        var output = [UInt8](repeating: 0, count: max(size, 1))
        let status = output.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in uncompress(out.baseAddress, &length, input.baseAddress, uLong(input.count)) }
        }
        guard status == Z_OK, Int(length) == size else { return nil }
        output.removeLast(output.count - size)
        return output
    }
}
