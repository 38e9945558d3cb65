import Foundation

extension CloudStore {
    // MARK: - Backups and restores

    /// What a backup of a store on SQLite needs today, said where one is asked for.
    static let dataDirectoryBackupAdvice = """
        Backups by cumulus need the store on PostgreSQL (--database-url). For a data directory on SQLite, \
        stop the server and copy the whole directory (its .sqlite files with their -wal files, and the assets); \
        to restore, stop the server and put the copy back
        """

    /// Writes a backup of the store `configuration` names to a new file at `path`: on PostgreSQL
    /// a `pg_dump` custom-format file of the store's schemas, taken in one snapshot while servers
    /// run. The file is private to its owner (it holds the server's secret and every credential),
    /// and appears only once it is complete. Assets are not in it: they are backed up where they
    /// are kept.
    /// - Throws: ``CloudStoreError/exists(_:)`` when `path` exists, ``CloudStoreError/notFound(_:)``
    ///   when its directory does not, ``CloudStoreError/badRequest(_:)`` on SQLite or when
    ///   `pg_dump` is missing, ``CloudStoreError/internalError(_:)`` when `pg_dump` fails.
    public static func backUp(_ configuration: CloudStoreConfiguration, to path: String) throws {
        let backup = try backupTool(configuration)
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
            throw CloudStoreError.internalError("Cannot name the backup \(path): \(error)")
        }
    }

    /// Replaces the store `configuration` names with the backup at `path`, then migrates it to
    /// this program's schema. On PostgreSQL the store's schemas are replaced in one transaction
    /// (nothing changes when any part fails), which also gives the store a new incarnation:
    /// every change token issued before the restore gets "change token expired", so devices
    /// fetch everything again rather than skip what the backup lacks. Other processes on the
    /// database see the restored data once their transactions end; stop them first for a restore
    /// nobody writes across. Returns how many environments the restored store has.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when `path` is missing,
    ///   ``CloudStoreError/badRequest(_:)`` when it is not a backup, on SQLite, or when a program
    ///   is missing, ``CloudStoreError/internalError(_:)`` when the restore fails.
    @discardableResult
    public static func restore(_ configuration: CloudStoreConfiguration, from path: String) throws -> Int {
        let backup = try backupTool(configuration)
        guard FileManager.default.fileExists(atPath: path) else {
            throw CloudStoreError.notFound("There is no backup at \(path)")
        }
        guard let file = FileHandle(forReadingAtPath: path) else {
            throw CloudStoreError.badRequest("Cannot read \(path)")
        }
        let header = (try? file.read(upToCount: 5)) ?? nil
        try? file.close()
        try backup.checkFormat(of: path, header: header.map(Array.init))
        var template = Array((FileManager.default.temporaryDirectory.path + "/cumulus-restore-XXXXXX").utf8CString)
        guard let made = mkdtemp(&template) else {
            throw CloudStoreError.internalError("Cannot make a temporary directory: \(String(cString: strerror(errno)))")
        }
        let workDirectory = String(cString: made)
        defer { try? FileManager.default.removeItem(atPath: workDirectory) }
        try backup.restore(from: path, workDirectory: workDirectory)
        return try CloudStore(configuration: configuration).migrateEverything()
    }

    /// How the store `configuration` names is backed up.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` with ``dataDirectoryBackupAdvice`` where
    ///   cumulus makes no backups.
    private static func backupTool(_ configuration: CloudStoreConfiguration) throws -> any StoreBackup {
        guard let backup = StorageBackends.backup(configuration.database) else {
            throw CloudStoreError.badRequest(dataDirectoryBackupAdvice)
        }
        return backup
    }
}
