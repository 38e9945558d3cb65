import Foundation

extension PostgresStorageBackend {
    /// Restores the environment's schema alone from the dump into a schema of its own
    /// (`cumulus_backup_read_…`, which no backup or restore of the store touches), and opens it,
    /// migrated to this program's schema when the backup is older; closing drops it. A schema
    /// left by a process that died reading is dropped by the next read a day later.
    func openEnvironment(_ container: ContainerIdentifier, _ environment: Environment, inBackup path: String, workDirectory: String) throws
        -> BackupEnvironment?
    {
        let original = Self.environmentSchema(container, environment)
        let programs = try PostgresClientPrograms(url: url)
        let dumped = workDirectory + "/environment.sql"
        try programs.run("pg_restore", ["--no-owner", "--no-privileges", "--schema", original, "--file", dumped, path])
        let now = Int64(Date().timeIntervalSince1970 * 1000)
        let scratch = "\(Self.backupReadPrefix)\(now)_\(SecureToken.hex(bytes: 6))"
        let script = workDirectory + "/scratch.sql"
        guard try Self.renameSchema(original, to: scratch, from: dumped, into: script) else { return nil }
        try dropLeftoverBackupReads(before: now - 86_400_000)
        try programs.run(
            "psql",
            [
                "--no-psqlrc", "--quiet", "--no-password", "--single-transaction", "--set", "ON_ERROR_STOP=1", "--dbname",
                programs.connection, "--command", "CREATE SCHEMA \(PostgresIdentifier.quote(scratch))", "--file", script,
            ])
        let pool = pool
        let drop: @Sendable () -> Void = {
            _ = try? pool.withConnection { try $0.execute("DROP SCHEMA IF EXISTS \(PostgresIdentifier.quote(scratch)) CASCADE") }
        }
        do {
            return BackupEnvironment(storage: try PostgresEnvironmentStore(pool: pool, schemaName: scratch), close: drop)
        } catch {
            drop()
            throw error
        }
    }

    /// What the schemas a backup is read into begin with.
    static let backupReadPrefix = "cumulus_backup_read_"

    /// Writes the SQL script at `source` (what `pg_restore` wrote of one schema) to `target`
    /// with every name qualified by `original` qualified by `scratch` instead; the rows of
    /// `COPY` blocks pass unchanged (a value may hold anything). Whether the script makes any
    /// table of the schema: a backup without the environment makes none.
    static func renameSchema(_ original: String, to scratch: String, from source: String, into target: String) throws -> Bool {
        guard let input = FileHandle(forReadingAtPath: source) else {
            throw CloudStoreError.internalError("Cannot read what pg_restore wrote")
        }
        defer { try? input.close() }
        guard FileManager.default.createFile(atPath: target, contents: nil, attributes: [.posixPermissions: 0o600]),
            let output = FileHandle(forWritingAtPath: target)
        else { throw CloudStoreError.internalError("Cannot write the script that reads the backup") }
        defer { try? output.close() }
        let qualified = "\(original).", renamed = "\(scratch)."
        var inCopy = false, makesTable = false
        var pending = Data()
        func emit(_ line: Data) throws {
            if inCopy {
                if line == Data("\\.".utf8) { inCopy = false }
                try output.write(contentsOf: line + [0x0A])
                return
            }
            var text = String(decoding: line, as: UTF8.self)
            if text.hasPrefix("CREATE TABLE \(qualified)") { makesTable = true }
            if text.hasPrefix("COPY \(qualified)"), text.hasSuffix("FROM stdin;") { inCopy = true }
            text = text.replacingOccurrences(of: qualified, with: renamed)
            try output.write(contentsOf: Data(text.utf8) + [0x0A])
        }
        while let chunk = try input.read(upToCount: 1 << 20), !chunk.isEmpty {
            pending.append(chunk)
            var start = pending.startIndex
            while let newline = pending[start...].firstIndex(of: 0x0A) {
                try emit(pending[start..<newline])
                start = pending.index(after: newline)
            }
            pending = Data(pending[start...])
        }
        if !pending.isEmpty { try emit(pending) }
        return makesTable
    }

    /// Drops the schemas backups were read into before `time` (milliseconds since 1970): left by
    /// a process that died while reading.
    private func dropLeftoverBackupReads(before time: Int64) throws {
        try pool.withConnection { connection in
            let pattern = Self.backupReadPrefix.replacingOccurrences(of: "_", with: "\\_") + "%"
            let names = try connection.execute("SELECT nspname::text FROM pg_namespace WHERE nspname LIKE $1", [.text(pattern)]).map {
                $0.text(0)
            }
            for name in names {
                let stamp = name.dropFirst(Self.backupReadPrefix.count).split(separator: "_").first.flatMap { Int64($0) }
                guard let stamp, stamp < time else { continue }
                _ = try connection.execute("DROP SCHEMA IF EXISTS \(PostgresIdentifier.quote(name)) CASCADE")
            }
        }
    }
}
