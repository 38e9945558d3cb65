/// Where a ``CloudStore`` keeps its databases.
public enum DatabaseLocation: Sendable, Hashable, CustomStringConvertible {
    /// SQLite files in the data directory: the catalog, one file per container environment, and
    /// the request log. One server, and the command line beside it, on one machine.
    case dataDirectory
    /// One PostgreSQL database that several `cumulus` processes share: the catalog, one schema
    /// per container environment, and the request log. The URL is a libpq connection URI or
    /// string (`postgres://user:password@host:5432/cumulus`).
    case postgres(url: String)

    /// How the choice reads in logs and banners; never shows a password.
    public var description: String {
        switch self {
        case .dataDirectory: "SQLite in the data directory"
        case .postgres(let url): "PostgreSQL at \(Self.redacted(url))"
        }
    }

    /// A URL with its password, if any, replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@") else {
            return url.contains("password=") ? "(a connection string)" : url
        }
        let credentials = url[scheme.upperBound..<at]
        guard let colon = credentials.firstIndex(of: ":") else { return url }
        return String(url[..<colon]) + ":***" + String(url[at...])
    }
}
