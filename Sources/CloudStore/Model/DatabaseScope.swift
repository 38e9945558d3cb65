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
