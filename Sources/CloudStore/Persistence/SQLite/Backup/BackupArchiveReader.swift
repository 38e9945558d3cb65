import Crypto
import Foundation

/// Unpacks a backup file into a directory, hashing every member, and checks the whole against
/// its manifest: nothing it unpacks is used before every member matched.
enum BackupArchiveReader {
    /// Unpacks the archive at `path` into `directory` (empty, private) and returns its manifest
    /// once every member is present with its size and SHA-256 and nothing else is there.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming `path` when the file is not a backup,
    ///   is damaged or incomplete.
    /// With `wanted`, only the members it accepts are unpacked (and hashed); the others are
    /// skipped, checked against the manifest by their sizes alone.
    static func unpack(_ path: String, into directory: String, only wanted: (String) -> Bool = { _ in true }) throws -> BackupManifest {
        guard let input = FileHandle(forReadingAtPath: path) else { throw CloudStoreError.badRequest("Cannot read \(path)") }
        defer { try? input.close() }
        do {
            return try unpack(input, into: directory, only: wanted)
        } catch CloudStoreError.badRequest(let reason) {
            throw CloudStoreError.badRequest("\(path) is not a backup of a data directory, or is damaged: \(reason). Nothing was replaced")
        }
    }

    /// Whether the archive at `path` ends with a readable manifest listing exactly its other
    /// members with their sizes, read by skipping from header to header (no member is hashed:
    /// a quick check for listings; a restore checks every checksum).
    static func manifestMatches(_ path: String) -> Bool {
        guard let input = FileHandle(forReadingAtPath: path) else { return false }
        defer { try? input.close() }
        var sizes: [String: Int64] = [:]
        do {
            while true {
                guard let (name, size) = try nextMember(input) else { return false }
                if name == BackupManifest.memberName {
                    guard size < 1 << 26 else { return false }
                    let manifest = try BackupManifest.decode(try readExactly(input, Int(size)))
                    return Dictionary(manifest.files.map { ($0.path, $0.bytes) }, uniquingKeysWith: { first, _ in first }) == sizes
                }
                sizes[name] = Int64(size)
                try input.seek(toOffset: try input.offset() + padded(size))
            }
        } catch {
            return false
        }
    }

    /// Whether an archive of `totalBytes` whose last bytes are `tail` ends with a readable
    /// manifest whose members, laid out as ``BackupArchiveWriter`` writes them, make exactly
    /// that size: the check of a backup kept where only its ends can be read cheaply (a bucket).
    /// `false` when `tail` does not reach back to the manifest's header.
    static func manifestMatches(tail: Data, totalBytes: Int64) -> Bool {
        let block = BackupTarHeader.block
        let bytes = Array(tail)
        // The archive ends with two zero blocks; the manifest is the member before them.
        guard bytes.count % block == 0, bytes.count >= 3 * block, Int64(bytes.count) <= totalBytes else { return false }
        let end = bytes.count - 2 * block
        var offset = end - block
        while offset >= 0 {
            if let (name, size, extended) = try? BackupTarHeader.read(Array(bytes[offset..<offset + block])), !extended,
                name == BackupManifest.memberName, offset + block + Int(size) <= end,
                let manifest = try? BackupManifest.decode(Data(bytes[(offset + block)..<(offset + block + Int(size))]))
            {
                var expected = Int64(2 * block)
                for (path, size) in manifest.files.map({ ($0.path, UInt64($0.bytes)) }) + [(BackupManifest.memberName, size)] {
                    guard let header = try? BackupTarHeader.make(name: path, size: size) else { return false }
                    expected += Int64(header.count) + Int64(padded(size))
                }
                return expected == totalBytes
            }
            offset -= block
        }
        return false
    }

    /// The next member's path and size, the file positioned at its data; `nil` at the
    /// archive's end. A pax extended header before it is read, and its path taken.
    private static func nextMember(_ input: FileHandle) throws -> (name: String, size: UInt64)? {
        let header = try input.read(upToCount: BackupTarHeader.block).map(Array.init) ?? []
        guard let (name, size, extended) = try BackupTarHeader.read(header) else { return nil }
        guard extended else { return (name, size) }
        guard size < 1 << 20 else { throw CloudStoreError.badRequest("an extended header is too large") }
        let path = try BackupTarHeader.paxPath(try readExactly(input, Int(size)))
        try skipPadding(input, size)
        let next = try input.read(upToCount: BackupTarHeader.block).map(Array.init) ?? []
        guard let (fileName, fileSize, again) = try BackupTarHeader.read(next), !again else {
            throw CloudStoreError.badRequest("an extended header is not followed by its member")
        }
        return (path ?? fileName, fileSize)
    }

    /// `size` rounded up to whole blocks: the member's data with its padding.
    private static func padded(_ size: UInt64) -> UInt64 {
        (size + UInt64(BackupTarHeader.block - 1)) / UInt64(BackupTarHeader.block) * UInt64(BackupTarHeader.block)
    }

    private static func unpack(_ input: FileHandle, into directory: String, only wanted: (String) -> Bool) throws -> BackupManifest {
        var found: [String: BackupManifest.File] = [:]
        var skipped: [String: Int64] = [:]
        var manifestData: Data?
        while true {
            guard let (name, size) = try nextMember(input) else { break }
            guard manifestData == nil else { throw CloudStoreError.badRequest("a member follows the manifest") }
            if name == BackupManifest.memberName {
                guard size < 1 << 26 else { throw CloudStoreError.badRequest("the manifest is too large") }
                manifestData = try readExactly(input, Int(size))
                try skipPadding(input, size)
                continue
            }
            let target = try safePath(name, in: directory)
            guard found[name] == nil, skipped[name] == nil else { throw CloudStoreError.badRequest("\(name) is in it twice") }
            guard wanted(name) else {
                skipped[name] = Int64(size)
                try input.seek(toOffset: try input.offset() + padded(size))
                continue
            }
            try CloudStore.makePrivateDirectory(URL(fileURLWithPath: target).deletingLastPathComponent().path)
            found[name] = try copy(input, size, to: target, as: name)
            try skipPadding(input, size)
        }
        guard let trailer = try input.read(upToCount: BackupTarHeader.block), trailer.count == BackupTarHeader.block,
            trailer.allSatisfy({ $0 == 0 })
        else { throw CloudStoreError.badRequest("it is incomplete") }
        guard let manifestData else { throw CloudStoreError.badRequest("it has no manifest") }
        let manifest = try BackupManifest.decode(manifestData)
        let listed = Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for (name, file) in found where listed[name] != file {
            throw CloudStoreError.badRequest(listed[name] == nil ? "\(name) is not in its manifest" : "\(name) does not match its checksum")
        }
        for (name, bytes) in skipped where listed[name]?.bytes != bytes {
            throw CloudStoreError.badRequest(listed[name] == nil ? "\(name) is not in its manifest" : "\(name) does not match its size")
        }
        if let missing = listed.keys.sorted().first(where: { found[$0] == nil && skipped[$0] == nil }) {
            throw CloudStoreError.badRequest("\(missing), listed in its manifest, is missing")
        }
        return manifest
    }

    /// Where the member `name` goes under `directory`: refused when it would leave it.
    private static func safePath(_ name: String, in directory: String) throws -> String {
        let parts = name.split(separator: "/", omittingEmptySubsequences: false)
        guard !name.hasPrefix("/"), !parts.isEmpty, parts.allSatisfy({ !$0.isEmpty && $0 != "." && $0 != ".." }) else {
            throw CloudStoreError.badRequest("the member name \(name) is not allowed")
        }
        return directory + "/" + name
    }

    private static func copy(_ input: FileHandle, _ size: UInt64, to target: String, as name: String) throws -> BackupManifest.File {
        let descriptor = open(target, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw CloudStoreError.internalError("Cannot write \(target): \(String(cString: strerror(errno)))") }
        let output = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
        var hasher = SHA256()
        var remaining = size
        while remaining > 0 {
            let chunk = try readExactly(input, Int(min(remaining, 1 << 20)))
            hasher.update(data: chunk)
            try output.write(contentsOf: chunk)
            remaining -= UInt64(chunk.count)
        }
        try output.synchronize()
        try output.close()
        return BackupManifest.File(path: name, bytes: Int64(size), sha256: BackupManifest.hex(hasher.finalize()))
    }

    private static func readExactly(_ input: FileHandle, _ count: Int) throws -> Data {
        let data = try input.read(upToCount: count) ?? Data()
        guard data.count == count else { throw CloudStoreError.badRequest("it is incomplete") }
        return data
    }

    /// Reads the zeros after a member's data; anything else is damage.
    private static func skipPadding(_ input: FileHandle, _ size: UInt64) throws {
        let rest = Int(size % UInt64(BackupTarHeader.block))
        guard rest != 0 else { return }
        guard try readExactly(input, BackupTarHeader.block - rest).allSatisfy({ $0 == 0 }) else {
            throw CloudStoreError.badRequest("the padding after a member is not zero")
        }
    }
}
