import Foundation

extension CloudStore {
    // MARK: - Backups and restores

    /// Writes a backup of the store `configuration` names to a new file at `path`, taken while
    /// servers run and write. On PostgreSQL a `pg_dump` custom-format file of the store's
    /// schemas, in one snapshot (assets are not in it: they are backed up where they are kept).
    /// On SQLite a tar archive of online-backup copies of the catalog, every environment and the
    /// request log, the asset blobs kept in files (unless `options` leaves them out) and a
    /// manifest with every member's SHA-256 (see ``SQLiteBackup`` for what is consistent with
    /// what). The file is private to its owner (it holds the server's secret and every
    /// credential), and appears only once it is complete.
    /// - Throws: ``CloudStoreError/exists(_:)`` when `path` exists, ``CloudStoreError/notFound(_:)``
    ///   when its directory (or the data directory) does not, ``CloudStoreError/badRequest(_:)``
    ///   when `pg_dump` is missing, ``CloudStoreError/internalError(_:)`` when the backup fails.
    public static func backUp(_ configuration: CloudStoreConfiguration, to path: String, options: BackupOptions = BackupOptions()) throws {
        let backup = StorageBackends.backup(configuration, options)
        let fileManager = FileManager.default
        guard !fileManager.fileExists(atPath: path) else {
            throw CloudStoreError.exists("\(path) exists already: choose a new file for the backup")
        }
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard fileManager.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw CloudStoreError.notFound("The directory \(directory) does not exist")
        }
        // Written beside its final name, then renamed: a failed backup leaves no file that
        // looks like one.
        let partial = "\(path).partial-\(SecureToken.hex(bytes: 4))"
        let descriptor = open(partial, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw CloudStoreError.badRequest("Cannot write in \(directory): \(String(cString: strerror(errno)))")
        }
        close(descriptor)
        defer { try? fileManager.removeItem(atPath: partial) }
        try backup.dump(to: partial)
        do {
            try fileManager.moveItem(atPath: partial, toPath: path)
        } catch {
            // Another backup took the name meanwhile (a file is never replaced).
            if fileManager.fileExists(atPath: path) { throw CloudStoreError.exists("A backup named \(path) exists already") }
            throw CloudStoreError.internalError("Cannot name the backup \(path): \(error)")
        }
    }

    /// Replaces the store `configuration` names with the backup at `path`, then migrates it to
    /// this program's schema. On SQLite the data directory must not be open in any other process
    /// (refused when it is); the backup is unpacked and checked against its manifest and with
    /// `PRAGMA integrity_check` before anything is replaced, and every environment gets a new
    /// incarnation (see ``SQLiteRestore``). On PostgreSQL the store's schemas are replaced in one transaction
    /// (nothing changes when any part fails), which also gives the store a new incarnation:
    /// every change token issued before the restore gets "change token expired", so devices
    /// fetch everything again rather than skip what the backup lacks. Other processes on the
    /// database see the restored data once their transactions end; stop them first for a restore
    /// nobody writes across. Returns how many environments the restored store has.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when `path` is missing,
    ///   ``CloudStoreError/badRequest(_:)`` when it is not a backup, is damaged, when another
    ///   process has the data directory open, or when a program is missing,
    ///   ``CloudStoreError/internalError(_:)`` when the restore fails.
    @discardableResult
    public static func restore(_ configuration: CloudStoreConfiguration, from path: String) throws -> Int {
        let backup = StorageBackends.backup(configuration, BackupOptions())
        guard FileManager.default.fileExists(atPath: path) else {
            throw CloudStoreError.notFound("There is no backup at \(path)")
        }
        try checkFormat(of: path, for: backup)
        var template = Array((FileManager.default.temporaryDirectory.path + "/cumulus-restore-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CloudStoreError.internalError("Cannot make a temporary directory: \(String(cString: strerror(errno)))")
        }
        let workDirectory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        try backup.restore(from: path, workDirectory: workDirectory)
        return try CloudStore(configuration: configuration).migrateEverything()
    }

    /// Checks that the file at `path` is a backup `backup` made, by its first bytes.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when it is not, or cannot be read.
    static func checkFormat(of path: String, for backup: any StoreBackup) throws {
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw CloudStoreError.badRequest("Cannot read \(path)")
        }
        let header = (try? file.read(upToCount: 5)) ?? nil
        try? file.close()
        try backup.checkFormat(of: path, header: header.map(Array.init))
    }
}
