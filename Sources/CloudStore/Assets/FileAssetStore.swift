import Foundation

/// Asset blobs as files: `<root>/containers/<container>/<environment>-assets/<first two hex
/// digits>/<sha>`, where the root is the data directory unless configured otherwise. A blob is
/// written whole to a temporary name and flushed, then renamed with the environment's writer
/// held, so that it is either complete or absent after a crash.
struct FileAssetStore: AssetStore {
    /// The folder holding `containers/`.
    let root: String

    /// The folder of an environment's blobs.
    func directory(of space: EnvironmentKey) -> String {
        "\(root)/containers/\(space.container.rawValue)/\(space.environment.rawValue)-assets"
    }

    func path(of sha: String, in space: EnvironmentKey) -> String { "\(directory(of: space))/\(sha.prefix(2))/\(sha)" }

    /// Writes the bytes to a temporary file and flushes them.
    func stage(_ sha: String, _ bytes: [UInt8], in space: EnvironmentKey) throws -> StagedBlob {
        let folder = "\(directory(of: space))/\(sha.prefix(2))"
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
        return StagedBlob(sha: sha, space: space, location: temporary)
    }

    /// Renames the staged file into place, or drops it when the blob is there already.
    func commit(_ staged: StagedBlob) throws {
        guard let temporary = staged.location else { return }
        let target = path(of: staged.sha, in: staged.space)
        if FileManager.default.fileExists(atPath: target) {
            unlink(temporary)
            return
        }
        guard rename(temporary, target) == 0 else {
            unlink(temporary)
            throw CloudStoreError.internalError("Cannot rename blob \(staged.sha): errno \(errno)")
        }
    }

    /// Removes the temporary file; a committed blob was never touched by staging.
    func discard(_ staged: StagedBlob, blobIsHeld: Bool) {
        if let temporary = staged.location { unlink(temporary) }
    }

    func read(_ sha: String, in space: EnvironmentKey) throws -> [UInt8] {
        guard let data = FileManager.default.contents(atPath: path(of: sha, in: space)) else {
            throw CloudStoreError.internalError("The file of blob \(sha) is missing")
        }
        return [UInt8](data)
    }

    func read(_ sha: String, range: ClosedRange<Int64>, in space: EnvironmentKey) throws -> [UInt8] {
        let descriptor = open(path(of: sha, in: space), O_RDONLY)
        guard descriptor >= 0 else { throw CloudStoreError.internalError("The file of blob \(sha) is missing") }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: Int(range.upperBound - range.lowerBound + 1))
        var filled = 0
        while filled < bytes.count {
            let result = bytes.withUnsafeMutableBytes { buffer in
                pread(descriptor, buffer.baseAddress! + filled, buffer.count - filled, off_t(range.lowerBound) + off_t(filled))
            }
            if result < 0, errno == EINTR { continue }
            guard result >= 0 else { throw CloudStoreError.internalError("Reading blob \(sha) failed: errno \(errno)") }
            if result == 0 { break }
            filled += result
        }
        bytes.removeLast(bytes.count - filled)
        return bytes
    }

    /// Unlinks the blob's file; one already gone is no failure.
    func remove(_ sha: String, in space: EnvironmentKey) throws { unlink(path(of: sha, in: space)) }

    /// Nothing to check: files need no service.
    func checkUsable() {}
}
