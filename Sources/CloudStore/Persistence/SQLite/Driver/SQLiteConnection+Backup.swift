import CSQLite

#if canImport(Glibc)
    import Glibc
#endif

extension SQLiteConnection {
    /// Copies the database, as this connection's open read transaction sees it (or as it is now,
    /// without one), into a new file at `path` with SQLite's online backup: pages are read
    /// through SQLite, so writers of other processes go on and the copy is one consistent
    /// snapshot, never a file copy of a live database. The new file is private to its owner.
    func backUp(into path: String) throws(SQLiteError) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else {
            throw SQLiteError(code: SQLITE_CANTOPEN, extendedCode: SQLITE_CANTOPEN, message: "cannot create \(path)", sql: nil)
        }
        close(descriptor)
        var destination: OpaquePointer?
        let code = sqlite3_open_v2(path, &destination, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nil)
        defer { sqlite3_close_v2(destination) }
        guard code == SQLITE_OK, let destination else {
            throw SQLiteError(code: code, extendedCode: code, message: "cannot open \(path)", sql: nil)
        }
        guard let backup = sqlite3_backup_init(destination, "main", handle, "main") else {
            let failed = sqlite3_errcode(destination)
            throw SQLiteError(code: failed, extendedCode: failed, message: String(cString: sqlite3_errmsg(destination)), sql: nil)
        }
        // All pages in one step: the source's read transaction stays one snapshot throughout.
        let stepped = sqlite3_backup_step(backup, -1)
        let finished = sqlite3_backup_finish(backup)
        guard stepped == SQLITE_DONE, finished == SQLITE_OK else {
            let failed = stepped == SQLITE_DONE ? finished : stepped
            throw SQLiteError(
                code: failed & 0xFF, extendedCode: failed,
                message: "backup of \(self.path) failed: \(String(cString: sqlite3_errstr(failed)))",
                sql: nil)
        }
    }

    /// What `PRAGMA integrity_check` finds: `["ok"]` for a sound file.
    func integrityCheck() throws -> [String] {
        try statement("PRAGMA integrity_check").rows { $0.text(0) }
    }
}
