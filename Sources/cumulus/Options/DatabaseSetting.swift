import CloudStore

/// Reads `--database-url` (or `CUMULUS_DATABASE_URL`), for `serve` and every command that opens the
/// store alike: a PostgreSQL URL, or nothing for SQLite files in the data directory.
enum DatabaseSetting {
    /// A problem with the value, worded without the value (it may hold a password).
    struct Problem: Error, CustomStringConvertible {
        var description: String
    }

    /// The location `value` names; SQLite in the data directory when it is absent or empty.
    static func resolve(_ value: String?) throws(Problem) -> DatabaseLocation {
        guard let value, !value.isEmpty else { return .dataDirectory }
        guard value.hasPrefix("postgres://") || value.hasPrefix("postgresql://") else {
            throw Problem(description: "a postgres:// URL")
        }
        return .postgres(url: value)
    }
}
