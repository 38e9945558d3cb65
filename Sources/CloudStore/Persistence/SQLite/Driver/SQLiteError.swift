import CSQLite
import Glibc

/// A failure reported by SQLite, with the statement that caused it.
struct SQLiteError: Error, CustomStringConvertible {
    /// The primary result code (`SQLITE_BUSY`, `SQLITE_CONSTRAINT`, …).
    var code: Int32
    /// The extended result code.
    var extendedCode: Int32
    /// SQLite's message.
    var message: String
    /// The SQL being executed, when known.
    var sql: String?
    /// The operating system's error behind an I/O failure (`ENOSPC`…), 0 when none is known.
    var systemErrno: Int32 = 0

    var description: String {
        var text = "SQLite error \(code): \(message)"
        if let sql { text += " - while executing `\(sql)`" }
        return text
    }

    /// Whether the database stayed locked past the busy timeout.
    var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }

    /// Whether a UNIQUE or PRIMARY KEY constraint refused the row. (`SQLITE_CONSTRAINT_UNIQUE`
    /// and `SQLITE_CONSTRAINT_PRIMARYKEY` are macros Swift cannot import:
    /// `SQLITE_CONSTRAINT | (8 << 8)` and `SQLITE_CONSTRAINT | (6 << 8)`.)
    var isUniqueViolation: Bool {
        extendedCode == SQLITE_CONSTRAINT | (8 << 8) || extendedCode == SQLITE_CONSTRAINT | (6 << 8)
    }

    /// Whether the disk or the database's page limit is full. A full disk met while SQLite
    /// makes a file (the write-ahead log's index when a database is first opened) comes as an
    /// I/O error whose system error says so.
    var isFull: Bool { code == SQLITE_FULL || (code == SQLITE_IOERR && systemErrno == ENOSPC) }
}

extension SQLiteError {
    /// The error as CloudStore reports it: locks that outlast the timeout are transient, a full
    /// disk is a quota, anything else is an internal failure.
    var cloudStoreError: CloudStoreError {
        if isBusy { return .tryAgainLater("The database is busy; try again") }
        if isFull { return .quotaExceeded("The database is full") }
        return .internalError(description)
    }
}
