import Foundation

/// Restores a backup made by ``SQLiteBackup`` into a data directory no process has open (or an
/// empty one): the archive is unpacked into a hidden directory inside the data directory and
/// checked — every member against the manifest's size and SHA-256, `PRAGMA integrity_check` on
/// every database — before anything is replaced; each environment then gets a new incarnation,
/// so change tokens and continuation markers issued before the restore expire. Only then are
/// the catalog, the request log and `containers/` swapped in, each by one rename, the old ones
/// moved aside first and deleted at the end. A process killed before the swap leaves the live
/// data untouched (the next restore clears what it left); one killed during the swap leaves it
/// recorded, and the next restore or store open on the directory completes it (see ``RestoreSwap``).
struct SQLiteRestore {
    let dataDirectory: String
    let assetStorage: AssetStorage

    /// The entries of a data directory a restore replaces; the lock file and anything else stay.
    static let replaced = [
        CloudStore.catalogFileName, CloudStore.requestLogFileName, "containers",
    ]

    func restore(from path: String) throws {
        try CloudStore.makePrivateDirectory(dataDirectory)
        let lock = try DataDirectoryLock(dataDirectory, exclusive: true)
        defer { withExtendedLifetime(lock) {} }
        try clearLeftovers()
        let staging = try CloudStore.privateDirectory(in: dataDirectory, "restore")
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let manifest = try BackupArchiveReader.unpack(path, into: staging)
        guard manifest.files.contains(where: { $0.path == CloudStore.catalogFileName }) else {
            throw CloudStoreError.badRequest("\(path) has no catalog (\(CloudStore.catalogFileName)). Nothing was replaced")
        }
        for file in manifest.files where file.path.hasSuffix(".sqlite") {
            try prepare("\(staging)/\(file.path)", isEnvironment: file.path.hasPrefix("containers/"), in: path)
        }
        try placeAssets(staging)
        // A backup without blobs keeps the data directory's own: blobs are named by their
        // content, so the ones already here serve the restored records.
        try swap(in: staging, keepingAssets: !manifest.assets && assetStorage == .dataDirectory)
    }

    /// Checks a restored database and gives an environment a new incarnation; the connection
    /// closes before the swap, folding its log into the file.
    private func prepare(_ database: String, isEnvironment: Bool, in path: String) throws {
        let connection = try SQLiteConnection(path: database)
        let findings = try connection.integrityCheck()
        guard findings == ["ok"] else {
            throw CloudStoreError.badRequest(
                "\(path) holds a damaged database: \(findings.prefix(3).joined(separator: "; ")). Nothing was replaced")
        }
        if isEnvironment {
            try connection.execute("UPDATE meta SET value = lower(hex(randomblob(8))) WHERE key = 'incarnation'")
        }
    }

    /// Puts the backup's blobs where this configuration keeps them.
    private func placeAssets(_ staging: String) throws {
        switch assetStorage {
        case .dataDirectory:
            try merge("\(staging)/\(SQLiteBackup.assetsPrefix)", into: staging)
        case .directory(let root):
            try merge("\(staging)/\(SQLiteBackup.assetsPrefix)", into: root)
            try merge(staging, into: root, only: { $0.split(separator: "/").dropFirst(2).first?.hasSuffix("-assets") == true })
        case .s3:
            break
        }
    }

    /// Moves the blobs under `source` into `target` where `target` lacks them (blobs are named by
    /// their content, so one present is the same).
    private func merge(_ source: String, into target: String, only wanted: (String) -> Bool = { _ in true }) throws {
        let fileManager = FileManager.default
        for relative in SQLiteBackup.blobs(in: source) where wanted(relative) {
            let destination = "\(target)/\(relative)"
            defer { try? fileManager.removeItem(atPath: "\(source)/\(relative)") }
            guard !fileManager.fileExists(atPath: destination) else { continue }
            try CloudStore.makePrivateDirectory(URL(fileURLWithPath: destination).deletingLastPathComponent().path)
            try fileManager.moveItem(atPath: "\(source)/\(relative)", toPath: destination)
        }
        if source.hasSuffix(SQLiteBackup.assetsPrefix) { try? fileManager.removeItem(atPath: source) }
    }

    /// Moves the live entries aside and the restored ones into place, then deletes the old
    /// (after moving their asset folders back, when `keepingAssets`). The swap is recorded in
    /// ``RestoreSwap``'s marker before its first rename, so a process killed anywhere in it
    /// leaves a directory the next restore or store open completes (``RestoreSwap/complete(in:)``).
    private func swap(in staging: String, keepingAssets: Bool) throws {
        let fileManager = FileManager.default
        let aside = try CloudStore.privateDirectory(in: dataDirectory, "replaced")
        let swap = RestoreSwap(
            staging: URL(fileURLWithPath: staging).lastPathComponent, aside: URL(fileURLWithPath: aside).lastPathComponent,
            incoming: Self.replaced.filter { fileManager.fileExists(atPath: "\(staging)/\($0)") }, keepingAssets: keepingAssets)
        RestoreSwap.crashPoint()
        try swap.record(in: dataDirectory)
        try swap.complete(in: dataDirectory)
    }

    /// Completes a swap a killed restore left recorded in `dataDirectory`, if any; the caller
    /// holds the directory's lock exclusively.
    static func completeInterruptedSwap(in dataDirectory: String) throws {
        guard let swap = try RestoreSwap.recorded(in: dataDirectory) else { return }
        try swap.complete(in: dataDirectory)
    }

    /// Whether a killed restore left a swap to complete in `dataDirectory`.
    static func hasInterruptedSwap(in dataDirectory: String) -> Bool {
        FileManager.default.fileExists(atPath: "\(dataDirectory)/\(RestoreSwap.markerName)")
    }

    /// Removes what an interrupted restore left unpacked, once any recorded swap is complete
    /// (a `.cumulus-replaced-*` directory only when empty: one a restore of an older version left
    /// may hold the only copy of the files it was moving).
    private func clearLeftovers() throws {
        try Self.completeInterruptedSwap(in: dataDirectory)
        for entry in (try? FileManager.default.contentsOfDirectory(atPath: dataDirectory)) ?? [] {
            if entry.hasPrefix(".cumulus-restore-") {
                try? FileManager.default.removeItem(atPath: "\(dataDirectory)/\(entry)")
            } else if entry.hasPrefix(".cumulus-replaced-") {
                rmdir("\(dataDirectory)/\(entry)")
            }
        }
    }
}
