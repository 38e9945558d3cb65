import Foundation

extension SQLiteStorageBackend {
    /// Unpacks the environment's file alone from the archive (checked against the manifest:
    /// the file by its SHA-256, every other member by its size), and opens it, migrated to this
    /// program's schema when the backup is older. Blobs asked for are unpacked then, the same way.
    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment, inBackup path: String, workDirectory: String) throws
        -> BackupEnvironment?
    {
        let member = "containers/\(container.rawValue)/\(environment.rawValue).sqlite"
        let manifest = try BackupArchiveReader.unpack(path, into: workDirectory, only: { $0 == member })
        guard manifest.files.contains(where: { $0.path == member }) else { return nil }
        let storage = try SQLiteEnvironmentStore(path: "\(workDirectory)/\(member)", synchronous: .normal)
        // Where a backup puts an environment's blobs: beside its file when they are kept in the
        // data directory, under `assets/` when kept in a directory of their own.
        let folder = "containers/\(container.rawValue)/\(environment.rawValue)-assets/"
        let folders = [folder, SQLiteBackup.assetsPrefix + folder]
        let blobs: @Sendable (Set<String>) throws -> [String: [UInt8]] = { hashes in
            guard !hashes.isEmpty else { return [:] }
            let wanted = Set(hashes.flatMap { sha in folders.map { "\($0)\(sha.prefix(2))/\(sha)" } })
            let target = try CloudStore.privateDirectory(in: workDirectory, "blobs")
            defer { try? FileManager.default.removeItem(atPath: target) }
            _ = try BackupArchiveReader.unpack(path, into: target, only: { wanted.contains($0) })
            var found: [String: [UInt8]] = [:]
            for sha in hashes {
                for folder in folders {
                    if let data = FileManager.default.contents(atPath: "\(target)/\(folder)\(sha.prefix(2))/\(sha)") {
                        found[sha] = Array(data)
                        break
                    }
                }
            }
            return found
        }
        return BackupEnvironment(storage: storage, blobs: blobs, close: {})
    }
}
