import Crypto
import Foundation

/// Writes a backup file: a POSIX (ustar) tar archive of regular files, each hashed with SHA-256
/// as it is written, so that the manifest, the archive's last member, can list what it holds.
/// Any `tar` reads it (`tar -tvf backup.tar`).
final class BackupArchiveWriter {
    private let output: FileHandle
    /// Each member's path with its size and SHA-256, in the order written.
    private(set) var written: [BackupManifest.File] = []

    /// Writes to `output`, an empty file open for writing.
    init(_ output: FileHandle) { self.output = output }

    /// Adds the file at `source` as `name` (a relative path, `/`-separated), streaming it. A
    /// file that is gone is skipped when `mayVanish` (an asset blob deleted meanwhile).
    func add(file source: String, as name: String, mayVanish: Bool = false) throws {
        guard let input = FileHandle(forReadingAtPath: source) else {
            if mayVanish, !FileManager.default.fileExists(atPath: source) { return }
            throw CloudStoreError.internalError("Cannot read \(source) for the backup")
        }
        defer { try? input.close() }
        let size = try input.seekToEnd()
        try input.seek(toOffset: 0)
        try output.write(contentsOf: try BackupTarHeader.make(name: name, size: size))
        var hasher = SHA256()
        var remaining = size
        while remaining > 0 {
            let chunk = try input.read(upToCount: Int(min(remaining, 1 << 20))) ?? Data()
            guard !chunk.isEmpty else { throw CloudStoreError.internalError("\(source) shrank while it was backed up") }
            hasher.update(data: chunk)
            try output.write(contentsOf: chunk)
            remaining -= UInt64(chunk.count)
        }
        try pad(size)
        written.append(BackupManifest.File(path: name, bytes: Int64(size), sha256: BackupManifest.hex(hasher.finalize())))
    }

    /// Adds `data` as the member `name`.
    func add(data: Data, as name: String) throws {
        try output.write(contentsOf: try BackupTarHeader.make(name: name, size: UInt64(data.count)))
        try output.write(contentsOf: data)
        try pad(UInt64(data.count))
    }

    /// Ends the archive with its two zero blocks and syncs it to disk.
    func finish() throws {
        try output.write(contentsOf: Data(count: BackupTarHeader.block * 2))
        try output.synchronize()
    }

    private func pad(_ size: UInt64) throws {
        let rest = Int(size % UInt64(BackupTarHeader.block))
        if rest != 0 { try output.write(contentsOf: Data(count: BackupTarHeader.block - rest)) }
    }
}
