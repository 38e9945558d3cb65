/// A failure reported by PostgreSQL or by libpq, with the statement that caused it.
///
/// Its description names the statement, so it is for the server's log only: the store turns it
/// into a ``CloudStoreError`` (``cloudStoreError``) whose internal reason the API edge never sends.
struct PostgresError: Error, CustomStringConvertible {
    /// The SQLSTATE code (`23505`, `40001`, …); empty when libpq failed before the server answered.
    var sqlState: String
    /// PostgreSQL's or libpq's message.
    var message: String
    /// The SQL being executed, when known.
    var sql: String?

    var description: String {
        var text = "PostgreSQL error \(sqlState.isEmpty ? "(client)" : sqlState): \(message)"
        if let sql { text += " - while executing `\(sql.prefix(300))`" }
        return text
    }

    /// Whether a UNIQUE or PRIMARY KEY constraint refused the row.
    var isUniqueViolation: Bool { sqlState == "23505" }

    /// Whether the transaction lost a serialization race or a deadlock, and may simply be run again.
    var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// A row lock asked for with `NOWAIT` was held by another transaction.
    var isLockNotAvailable: Bool { sqlState == "55P03" }

    /// Whether the connection to the server is gone (class 08), or the server is shutting down (57P0x).
    var isConnectionFailure: Bool { sqlState.isEmpty || sqlState.hasPrefix("08") || sqlState.hasPrefix("57P0") }

    /// Whether the server ran out of disk or memory (class 53).
    var isOutOfResources: Bool { sqlState.hasPrefix("53") }
}

extension PostgresError {
    /// The error as CloudStore reports it: lost races and lost connections are transient, a
    /// full disk is a quota, anything else is an internal failure.
    var cloudStoreError: CloudStoreError {
        if isRetryable || isConnectionFailure { return .tryAgainLater("The database is busy or unreachable; try again") }
        if isOutOfResources { return .quotaExceeded("The database is full") }
        return .internalError(description)
    }
}

extension PostgresError {
    /// Runs `body`, reporting PostgreSQL's failures as CloudStore's: the one place a store's
    /// entry points turn them.
    static func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw error.cloudStoreError
        }
    }
}
