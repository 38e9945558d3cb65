import Foundation

extension CloudStore {
    // MARK: - Backups a server keeps

    /// Writes a backup of the store `configuration` names as the object `key` of `bucket`: taken
    /// into a private temporary file as ``backUp(_:to:options:)`` takes it, then uploaded whole.
    /// - Throws: what ``backUp(_:to:options:)`` throws, and ``CloudStoreError`` when the bucket
    ///   refuses the object or does not answer.
    @discardableResult
    public static func backUp(
        _ configuration: CloudStoreConfiguration, toObject key: String, in bucket: S3AssetConfiguration,
        options: BackupOptions = BackupOptions()
    ) throws -> Int64 {
        let staging = try CloudStore.privateDirectory(in: FileManager.default.temporaryDirectory.path, "upload")
        defer { try? FileManager.default.removeItem(atPath: staging) }
        let file = "\(staging)/backup"
        try backUp(configuration, to: file, options: options)
        try S3BackupBucket(bucket).upload(file, as: key)
        return Self.fileBytes(file)
    }

    /// Takes a backup into the schedule's location under a new name saying when, then deletes
    /// the oldest beyond the schedule's `keep`; recorded as ``lastBackup`` once it is complete,
    /// and in the audit trail when `actor` asked for it (the schedule takes its own unaudited).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when the server has no backup location,
    ///   else what the backup or the location throws.
    @discardableResult
    public func takeBackup(by actor: OperatorIdentity? = nil) throws -> StoredBackup {
        try backupTaking.withLock { _ in try takeBackupAlone(by: actor) }
    }

    /// The backup a schedule takes: taken as ``takeBackup(by:)`` takes one when this process
    /// is the one of those sharing the database that takes the scheduled backups (on SQLite, the
    /// only one), else `nil`. A process takes over when the one that took them is gone.
    /// - Throws: what ``takeBackup(by:)`` throws.
    public func takeScheduledBackup() throws -> StoredBackup? {
        guard backend.backupElection?.holdsScheduledBackups() ?? true else { return nil }
        return try takeBackup()
    }

    /// ``takeBackup(by:)``, with no other backup of this process being taken.
    private func takeBackupAlone(by actor: OperatorIdentity?) throws -> StoredBackup {
        let schedule = try backupSchedule()
        let options = BackupOptions(programVersion: schedule.programVersion)
        let created = Date()
        let name = Self.backupName(at: created, database: configuration.database)
        let bytes: Int64
        switch schedule.location {
        case .directory(let directory):
            try Self.makePrivateDirectory(directory)
            try Self.backUp(configuration, to: "\(directory)/\(name)", options: options)
            bytes = Self.fileBytes("\(directory)/\(name)")
        case .bucket(let bucket, let prefix):
            bytes = try Self.backUp(configuration, toObject: prefix + name, in: bucket, options: options)
        }
        let backup = StoredBackup(name: name, created: Self.backupDate(of: name) ?? created, bytes: bytes, manifestOK: nil)
        lastBackupState.withLock { $0 = LastBackup(backup: backup, finished: Date()) }
        try auditBackup(actor, "backup.take", name)
        for old in try backups().dropFirst(schedule.keep) { try deleteBackup(named: old.name) }
        return backup
    }

    /// The backups in the schedule's location, newest first.
    public func backups() throws -> [StoredBackup] {
        switch try backupSchedule().location {
        case .directory(let directory):
            let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
            return names.compactMap { name in
                guard let created = Self.backupDate(of: name) else { return nil }
                let path = "\(directory)/\(name)"
                return StoredBackup(
                    name: name, created: created, bytes: Self.fileBytes(path),
                    manifestOK: name.hasSuffix(".tar") ? BackupArchiveReader.manifestMatches(path) : nil)
            }.sorted { $0.created > $1.created }
        case .bucket(let bucket, let prefix):
            let shelf = S3BackupBucket(bucket)
            return try shelf.list(prefix: prefix).compactMap { object in
                let name = String(object.key.dropFirst(prefix.count))
                guard let created = Self.backupDate(of: name) else { return nil }
                // The archive's end holds its manifest: one ranged read checks the sizes add up.
                let manifestOK =
                    name.hasSuffix(".tar")
                    ? (try? shelf.tail(object.key, count: Self.manifestTailBytes(of: object.bytes)))
                        .map { BackupArchiveReader.manifestMatches(tail: $0, totalBytes: object.bytes) } ?? false : nil
                return StoredBackup(name: name, created: created, bytes: object.bytes, manifestOK: manifestOK)
            }.sorted { $0.created > $1.created }
        }
    }

    /// How much of a bucket's archive of `bytes` is read to find its manifest: up to 4 MiB, in
    /// whole blocks (a manifest lists every member, blobs included, at about 150 bytes each).
    private static func manifestTailBytes(of bytes: Int64) -> Int {
        Int(min(bytes - bytes % Int64(BackupTarHeader.block), 4 << 20))
    }

    /// Deletes the backup `name` from the schedule's location, audited as `actor`'s.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such backup.
    public func deleteBackup(named name: String, by actor: OperatorIdentity? = nil) throws {
        guard Self.backupDate(of: name) != nil else { throw CloudStoreError.notFound("There is no backup \(name)") }
        switch try backupSchedule().location {
        case .directory(let directory):
            guard unlink("\(directory)/\(name)") == 0 else {
                throw errno == ENOENT
                    ? CloudStoreError.notFound("There is no backup \(name)")
                    : CloudStoreError.internalError("Cannot delete \(name): \(String(cString: strerror(errno)))")
            }
        case .bucket(let bucket, let prefix):
            try S3BackupBucket(bucket).delete(prefix + name)
        }
        try auditBackup(actor, "backup.delete", name)
    }

    /// The backup `name`'s content, for a download by `actor` (audited: it holds the server's
    /// secret and every credential): its file, or a private copy of a bucket's object.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such backup.
    public func backupContent(named name: String, by actor: OperatorIdentity) throws -> BackupContent {
        var folder: String?
        let content: BackupContent
        do {
            content = try locateBackup(named: name) {
                let made = try Self.privateDirectory(in: FileManager.default.temporaryDirectory.path, "download")
                folder = made
                return made
            }
        } catch {
            if let folder { try? FileManager.default.removeItem(atPath: folder) }
            throw error
        }
        try auditBackup(actor, "backup.download", name)
        return content
    }

    /// The file of the backup `name`, checked to be one this store's backend made: in the
    /// schedule's directory, or a bucket's object written into `workDirectory` (private).
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such backup,
    ///   ``CloudStoreError/badRequest(_:)`` when it is not a backup of this backend.
    func backupFile(named name: String, into workDirectory: String) throws -> String {
        let path = try locateBackup(named: name) { workDirectory }.path
        try Self.checkFormat(of: path, for: StorageBackends.backup(configuration, BackupOptions()))
        return path
    }

    /// The backup `name` to read: its file in the schedule's directory, or a bucket's object
    /// copied, a range at a time, into the private folder `copyFolder` gives.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when there is no such backup.
    private func locateBackup(named name: String, copyFolder: () throws -> String) throws -> BackupContent {
        guard Self.backupDate(of: name) != nil else { throw CloudStoreError.notFound("There is no backup \(name)") }
        switch try backupSchedule().location {
        case .directory(let directory):
            let path = "\(directory)/\(name)"
            guard FileManager.default.fileExists(atPath: path) else { throw CloudStoreError.notFound("There is no backup \(name)") }
            return .file(path)
        case .bucket(let bucket, let prefix):
            let path = "\(try copyFolder())/\(name)"
            try S3BackupBucket(bucket).download(prefix + name, to: path)
            return .copy(path)
        }
    }

    /// Writes the audit entry of an action on a backup (files, not rows: no transaction to join).
    private func auditBackup(_ actor: OperatorIdentity?, _ action: String, _ name: String) throws {
        guard let actor else { return }
        let note = auditNote(actor, action, container: nil, environment: nil, target: name)
        try lifecycleStorage.insertAuditEntry(note.entry, forgetBefore: note.forgetBefore)
    }

    /// The last backup this process took successfully, if any: its name, time and size.
    public var lastBackup: LastBackup? { lastBackupState.withLock { $0 } }

    private func backupSchedule() throws -> BackupSchedule {
        guard let schedule = configuration.backups else {
            throw CloudStoreError.badRequest("This server has no backup location (--backup-to)")
        }
        return schedule
    }

    /// `cumulus-backup-20261129T061500.250Z.tar` (`.dump` on PostgreSQL).
    static func backupName(at date: Date, database: DatabaseLocation) -> String {
        let suffix: String
        switch database {
        case .dataDirectory: suffix = "tar"
        case .postgres: suffix = "dump"
        }
        return "cumulus-backup-\(backupStamp.string(from: date)).\(suffix)"
    }

    /// When the backup named `name` was taken, or `nil` when it is not a backup's name.
    static func backupDate(of name: String) -> Date? {
        guard name.hasPrefix("cumulus-backup-"), !name.contains("/"), let dot = name.lastIndex(of: "."),
            [".tar", ".dump"].contains(name[dot...])
        else {
            return nil
        }
        return backupStamp.date(from: String(name[..<dot].dropFirst("cumulus-backup-".count)))
    }

    /// A formatter of its own for each use: formatters are not shared across threads.
    private static var backupStamp: ISO8601DateFormatter {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withYear, .withMonth, .withDay, .withTime, .withFractionalSeconds, .withTimeZone]
        return formatter
    }

    private static func fileBytes(_ path: String) -> Int64 {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64) ?? 0
    }
}
