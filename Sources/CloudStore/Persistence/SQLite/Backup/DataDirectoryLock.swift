import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A lock on a data directory, held on its `cumulus.lock` file (a `flock`, apart from SQLite's
/// own locks on the databases): shared by every process with the store open there — servers
/// and commands alike — and exclusive for a restore, which replaces the files under them.
final class DataDirectoryLock: Sendable {
    /// The lock file's name in the data directory.
    static let fileName = "cumulus.lock"
    private let descriptor: Int32

    /// Takes the lock on `directory` (which exists), shared or exclusive, without waiting.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when another process holds it in the other
    ///   way, saying which.
    init(_ directory: String, exclusive: Bool) throws {
        let path = "\(directory)/\(Self.fileName)"
        descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CloudStoreError.internalError("Cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, (exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB) == 0 else {
            close(descriptor)
            throw CloudStoreError.badRequest(
                exclusive
                    ? "A server or another cumulus command has the data directory \(directory) open: stop it before restoring"
                    : "A restore is replacing the data directory \(directory): start again once it has finished")
        }
    }

    deinit { close(descriptor) }
}
