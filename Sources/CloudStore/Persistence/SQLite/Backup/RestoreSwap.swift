import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The swap at the end of a restore on SQLite, made safe against a process killed in it: the
/// swap is recorded in a marker file in the data directory (written whole and synced) before
/// its first rename, and every step of it can be run again, so whoever finds the marker — the
/// next restore or the next process opening the store — completes the swap. Without a marker
/// the directory holds the old data untouched; with one, it ends with all of the new.
///
/// The steps, in order: every live entry moved into `aside`; every entry of `incoming` moved from
/// `staging` into place; with `keepingAssets`, the old asset folders moved back; `aside` and
/// `staging` deleted; the marker deleted. Moving in begins only once every live entry is aside,
/// so an entry still in `staging` tells which step a killed process was at.
struct RestoreSwap: Codable, Equatable {
    /// The marker's name in the data directory.
    static let markerName = ".cumulus-restore-swap.json"

    /// The directory of the checked, restored entries, by name in the data directory.
    var staging: String
    /// The directory the live entries are moved into, by name in the data directory.
    var aside: String
    /// The entries of ``SQLiteRestore/replaced`` the backup holds, moved into place.
    var incoming: [String]
    /// Whether the old asset folders go back into the new `containers/` (a backup without blobs).
    var keepingAssets: Bool

    /// Writes the marker into `dataDirectory` and syncs it and the directory: from here on the
    /// swap happens, now or at the next open.
    func record(in dataDirectory: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let temporary = "\(dataDirectory)/\(Self.markerName).partial"
        let written = FileManager.default.createFile(
            atPath: temporary, contents: try encoder.encode(self), attributes: [.posixPermissions: 0o600])
        guard written, Self.sync(temporary), rename(temporary, "\(dataDirectory)/\(Self.markerName)") == 0, Self.sync(dataDirectory) else {
            throw CloudStoreError.internalError("Cannot record the restore in \(dataDirectory): \(String(cString: strerror(errno)))")
        }
        Self.crashPoint()
    }

    /// The swap recorded in `dataDirectory`, if a restore was killed in one.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the marker cannot be read.
    static func recorded(in dataDirectory: String) throws -> RestoreSwap? {
        let path = "\(dataDirectory)/\(markerName)"
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        guard let data = FileManager.default.contents(atPath: path), let swap = try? JSONDecoder().decode(RestoreSwap.self, from: data),
            !swap.staging.contains("/"), !swap.aside.contains("/")
        else {
            throw CloudStoreError.internalError("\(path), left by a restore that was stopped, cannot be read: restore the backup again")
        }
        return swap
    }

    /// Runs the swap from wherever it stopped, to its end.
    func complete(in dataDirectory: String) throws {
        let fileManager = FileManager.default
        let staging = "\(dataDirectory)/\(self.staging)"
        let aside = "\(dataDirectory)/\(self.aside)"
        func move(_ from: String, _ to: String) throws {
            do {
                try fileManager.moveItem(atPath: from, toPath: to)
            } catch {
                throw CloudStoreError.internalError("Cannot move \(from) to \(to) while restoring: \(error)")
            }
            Self.crashPoint()
        }
        let movingIn = incoming.contains { !fileManager.fileExists(atPath: "\(staging)/\($0)") }
        if !movingIn {
            for name in SQLiteRestore.replaced {
                for entry in name.hasSuffix(".sqlite") ? [name, name + "-wal", name + "-shm"] : [name]
                where fileManager.fileExists(atPath: "\(dataDirectory)/\(entry)") {
                    try move("\(dataDirectory)/\(entry)", "\(aside)/\(entry)")
                }
            }
        }
        for name in incoming where fileManager.fileExists(atPath: "\(staging)/\(name)") {
            try move("\(staging)/\(name)", "\(dataDirectory)/\(name)")
        }
        if keepingAssets {
            for container in (try? fileManager.contentsOfDirectory(atPath: "\(dataDirectory)/containers")) ?? [] {
                for environment in Environment.allCases {
                    let folder = "containers/\(container)/\(environment.rawValue)-assets"
                    guard fileManager.fileExists(atPath: "\(aside)/\(folder)"),
                        !fileManager.fileExists(atPath: "\(dataDirectory)/\(folder)")
                    else { continue }
                    try move("\(aside)/\(folder)", "\(dataDirectory)/\(folder)")
                }
            }
        }
        _ = Self.sync(dataDirectory)
        try? fileManager.removeItem(atPath: aside)
        try? fileManager.removeItem(atPath: staging)
        guard unlink("\(dataDirectory)/\(Self.markerName)") == 0 || errno == ENOENT else {
            throw CloudStoreError.internalError(
                "Cannot remove the restore's marker in \(dataDirectory): \(String(cString: strerror(errno)))")
        }
        _ = Self.sync(dataDirectory)
    }

    /// Flushes a file or a directory to the disk.
    private static func sync(_ path: String) -> Bool {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return fsync(descriptor) == 0
    }

    /// The test hook the crash tests use: with `CUMULUS_TEST_RESTORE_KILL_AT` set to N, the
    /// process kills itself with SIGKILL at the Nth point of a swap (0: before the marker is
    /// written; then after it and after every rename), as a crash there would.
    static func crashPoint() {
        guard let wanted = killAt else { return }
        let reached = passed.add()
        if reached == wanted { kill(getpid(), SIGKILL) }
    }

    private static let killAt = ProcessInfo.processInfo.environment["CUMULUS_TEST_RESTORE_KILL_AT"].flatMap(Int.init)
    private static let passed = CrashPointCounter()
}

/// How many crash points a process has passed (one restore runs at a time in a process).
private final class CrashPointCounter: Sendable {
    private let count = Mutex(0)

    /// Counts one more point; returns how many were passed before it.
    func add() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }
}
