import Foundation

/// Backups of a data directory on SQLite, taken while servers run and write: one file (see
/// ``BackupArchiveWriter``) holding an online-backup copy of the catalog, of every environment
/// the catalog lists and of the request log, the asset blobs kept in files unless left out, and
/// the manifest.
///
/// Consistency: the backing-up process opens a read transaction on every file before it copies
/// any: the catalog first, then each environment the catalog's snapshot lists, then the request
/// log. Each copy is then that file's snapshot, whatever servers write meanwhile (WAL readers
/// never block writers, nor writers them), and each snapshot holds every write acknowledged
/// before the backup began. The snapshots of different files are taken a few milliseconds
/// apart, not at one instant; that is enough because every write cumulus acknowledges lives
/// in one file: a `records/modify` with its change-log entries is one transaction of one
/// environment, and the catalog only names environments (an environment made after the
/// catalog's snapshot is not in the backup, as its container is not). Asset blobs are listed
/// after the environments' snapshots, so every blob a backed-up record names is there (a blob
/// is in place before the record naming it commits).
struct SQLiteBackup: StoreBackup {
    let dataDirectory: String
    let assetStorage: AssetStorage
    let options: BackupOptions

    func dump(to path: String) throws {
        let catalogPath = "\(dataDirectory)/\(CloudStore.catalogFileName)"
        guard FileManager.default.fileExists(atPath: catalogPath) else {
            throw CloudStoreError.notFound("There is no cumulus data directory at \(dataDirectory) (no \(CloudStore.catalogFileName))")
        }
        let staging = try CloudStore.privateDirectory(in: URL(fileURLWithPath: path).deletingLastPathComponent().path, "backup")
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let created = ISO8601DateFormatter().string(from: Date())
        let (snapshots, containers) = try pinSnapshots(catalogPath)
        for (name, connection) in snapshots {
            try CloudStore.makePrivateDirectory(URL(fileURLWithPath: "\(staging)/\(name)").deletingLastPathComponent().path)
            try connection.backUp(into: "\(staging)/\(name)")
            try connection.execute("COMMIT")
        }
        guard let output = FileHandle(forWritingAtPath: path) else { throw CloudStoreError.internalError("Cannot write \(path)") }
        defer { try? output.close() }
        let archive = BackupArchiveWriter(output)
        for (name, _) in snapshots { try archive.add(file: "\(staging)/\(name)", as: name) }
        let assets = try addAssets(of: containers, to: archive)
        let manifest = BackupManifest(
            cumulusVersion: options.programVersion, created: created, assets: assets, files: archive.written)
        try archive.add(data: try manifest.encoded(), as: BackupManifest.memberName)
        try archive.finish()
    }

    func checkFormat(of path: String, header: [UInt8]?) throws {
        guard let file = FileHandle(forReadingAtPath: path) else { throw CloudStoreError.badRequest("Cannot read \(path)") }
        defer { try? file.close() }
        let first = ((try? file.read(upToCount: BackupTarHeader.block)) ?? nil).map(Array.init) ?? []
        guard (try? BackupTarHeader.read(first)) != nil else {
            throw CloudStoreError.badRequest("\(path) is not a backup of a data directory (made by `cumulus backup` on SQLite)")
        }
    }

    func restore(from path: String, workDirectory: String) throws {
        try SQLiteRestore(dataDirectory: dataDirectory, assetStorage: assetStorage).restore(from: path)
    }

    /// Opens a connection on every file to back up and a read transaction on each, in the order
    /// the type's comment gives; returns them by their path in the archive, with the containers
    /// the catalog's snapshot lists.
    private func pinSnapshots(_ catalogPath: String) throws -> ([(String, SQLiteConnection)], [String]) {
        let catalog = try Self.pinned(catalogPath)
        let containers = try catalog.statement("SELECT container FROM containers ORDER BY container").rows { $0.text(0) }
        var snapshots = [(CloudStore.catalogFileName, catalog)]
        for container in containers {
            for environment in Environment.allCases {
                let name = "containers/\(container)/\(environment.rawValue).sqlite"
                // An environment nobody used yet has no file: it is made empty when first opened.
                guard FileManager.default.fileExists(atPath: "\(dataDirectory)/\(name)") else { continue }
                snapshots.append((name, try Self.pinned("\(dataDirectory)/\(name)")))
            }
        }
        let requestLog = "\(dataDirectory)/\(CloudStore.requestLogFileName)"
        if FileManager.default.fileExists(atPath: requestLog) {
            snapshots.append((CloudStore.requestLogFileName, try Self.pinned(requestLog)))
        }
        return (snapshots, containers)
    }

    /// A connection on `path` holding a read transaction: its snapshot, until it commits.
    private static func pinned(_ path: String) throws -> SQLiteConnection {
        let connection = try SQLiteConnection(path: path)
        try connection.execute("BEGIN")
        _ = try connection.statement("SELECT count(*) FROM sqlite_schema").scalarInteger()
        return connection
    }

    /// Adds the asset blobs of `containers` kept in files, unless left out; whether any store of
    /// blobs was backed up (not when they are left out or kept in a bucket).
    private func addAssets(of containers: [String], to archive: BackupArchiveWriter) throws -> Bool {
        guard options.includeAssets else { return false }
        let root: String, prefix: String
        switch assetStorage {
        case .dataDirectory: (root, prefix) = (dataDirectory, "")
        case .directory(let directory): (root, prefix) = (directory, Self.assetsPrefix)
        case .s3: return false
        }
        for container in containers {
            for environment in Environment.allCases {
                let folder = "containers/\(container)/\(environment.rawValue)-assets"
                for file in Self.blobs(in: "\(root)/\(folder)") {
                    try archive.add(file: "\(root)/\(folder)/\(file)", as: "\(prefix)\(folder)/\(file)", mayVanish: true)
                }
            }
        }
        return true
    }

    /// Where blobs kept outside the data directory are in the archive.
    static let assetsPrefix = "assets/"

    /// The blobs under `folder`, by relative path, sorted; files being written (hidden names) left out.
    static func blobs(in folder: String) -> [String] {
        guard let enumerator = FileManager.default.enumerator(atPath: folder) else { return [] }
        var found: [String] = []
        while let relative = enumerator.nextObject() as? String {
            guard !relative.split(separator: "/").contains(where: { $0.hasPrefix(".") }) else { continue }
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: "\(folder)/\(relative)", isDirectory: &isDirectory), !isDirectory.boolValue {
                found.append(relative)
            }
        }
        return found.sorted()
    }

}

/// What a backup includes, and what it records of the program writing it.
public struct BackupOptions: Sendable {
    /// Whether asset blobs kept in files go into the backup (on SQLite).
    public var includeAssets: Bool
    /// The version of cumulus, recorded in the manifest.
    public var programVersion: String

    /// Options for a backup: assets included unless `includeAssets` is false.
    public init(includeAssets: Bool = true, programVersion: String = "unknown") {
        self.includeAssets = includeAssets
        self.programVersion = programVersion
    }
}
