import CZlib
import Crypto
import Foundation

/// The files of one environment's asset blobs: `<environment>-assets/<first two hex digits>/<sha>`,
/// written whole to a temporary name, flushed, then renamed, so that a blob is either complete
/// or absent after a crash. Renames and removals happen with the environment's writer held.
struct BlobFiles: Sendable {
    /// The folder holding the blobs.
    let directory: String

    /// The content's SHA-256 in hex, and the bytes to store: compressed when zlib saves at least
    /// a tenth (text, JSON, uncompressed images), as they are otherwise (JPEG, video, archives).
    static func prepare(_ content: [UInt8]) -> (sha: String, stored: [UInt8], compressed: Bool) {
        let sha = SecureToken.hexString(Array(SHA256.hash(data: content)))
        if content.count >= 64, let deflated = deflate(content), deflated.count <= content.count - content.count / 10 {
            return (sha, deflated, true)
        }
        return (sha, content, false)
    }

    func path(of sha: String) -> String { "\(directory)/\(sha.prefix(2))/\(sha)" }

    /// Writes a blob's bytes to a temporary file and flushes them, ready for ``commit(_:as:)``:
    /// the slow part, done outside any transaction.
    func stage(_ sha: String, _ bytes: [UInt8]) throws -> String {
        let folder = "\(directory)/\(sha.prefix(2))"
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let temporary = "\(folder)/.\(sha).\(UUID().uuidString)"
        let descriptor = open(temporary, O_WRONLY | O_CREAT | O_EXCL, 0o600)
        guard descriptor >= 0 else { throw CloudStoreError.internalError("Cannot create \(temporary): errno \(errno)") }
        var written = 0
        let failure: String? = bytes.withUnsafeBytes { buffer in
            while written < buffer.count {
                let result = Glibc.write(descriptor, buffer.baseAddress! + written, buffer.count - written)
                if result < 0 {
                    if errno == EINTR { continue }
                    return "errno \(errno)"
                }
                written += result
            }
            return fsync(descriptor) == 0 ? nil : "fsync errno \(errno)"
        }
        close(descriptor)
        if let failure {
            unlink(temporary)
            throw CloudStoreError.internalError("Writing blob \(sha) failed: \(failure)")
        }
        return temporary
    }

    /// Puts a staged file in its place, or drops it when the blob is there already. Called with
    /// the environment's writer held, as removals are, so that the two never cross.
    func commit(_ temporary: String, as sha: String) throws {
        let target = path(of: sha)
        if FileManager.default.fileExists(atPath: target) {
            unlink(temporary)
            return
        }
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw CloudStoreError.internalError("Cannot rename blob \(sha): errno \(errno)")
        }
    }

    /// Drops a staged file that was not committed.
    func discard(_ temporary: String) { unlink(temporary) }

    /// A blob's content, inflated when it was stored compressed.
    func read(_ blob: AssetBlob) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path(of: blob.sha)) else {
            throw CloudStoreError.internalError("The file of blob \(blob.sha) is missing")
        }
        let bytes = [UInt8](data)
        guard blob.compressed else { return bytes }
        guard let content = Self.inflate(bytes, size: Int(blob.size)) else {
            throw CloudStoreError.internalError("The file of blob \(blob.sha) is damaged")
        }
        return content
    }

    /// Removes a blob's file.
    func remove(_ sha: String) { unlink(path(of: sha)) }

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
