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

    /// A URL with its password, if any, replaced by `***`: the one after the user name, and the
    /// one a `password` query parameter gives. A keyword string with a password is not shown.
    static func redacted(_ url: String) -> String {
        guard let scheme = url.range(of: "://") else {
            return url.contains("password=") ? "(a connection string)" : url
        }
        var redacted = url
        if let at = url[scheme.upperBound...].firstIndex(of: "@"), let colon = url[scheme.upperBound..<at].firstIndex(of: ":") {
            redacted = String(url[...colon]) + "***" + String(url[at...])
        }
        guard let query = redacted.firstIndex(of: "?") else { return redacted }
        let parameters = redacted[redacted.index(after: query)...].split(separator: "&", omittingEmptySubsequences: false).map {
            parameter in
            parameter.hasPrefix("password=") ? "password=***" : String(parameter)
        }
        return String(redacted[...query]) + parameters.joined(separator: "&")
    }
}
