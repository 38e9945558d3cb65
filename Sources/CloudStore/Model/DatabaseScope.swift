/// Which of a container's databases a request addresses.
public enum DatabaseScope: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// The one database every user of the container shares.
    case `public`
    /// One database per user, readable and writable by that user alone.
    case `private`
    /// One database per user, holding what other users share with them.
    case shared

    public var description: String { rawValue }
}

extension DatabaseScope {
    /// The database a request names, as every edge (the data API, the console, the management
    /// API and the command line) reads it.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the three databases when `name` is none of them.
    public init(parsing name: String) throws(CloudStoreError) {
        guard let scope = DatabaseScope(rawValue: name) else {
            throw .badRequest("Unknown database '\(name)': use public, private or shared")
        }
        self = scope
    }
}
