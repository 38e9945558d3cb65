/// One of a container's two environments. Development changes its schema just in time;
/// production accepts only the deployed schema.
public enum Environment: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case development
    case production

    public var description: String { rawValue }
}

extension Environment {
    /// The environment a request names, as every edge (the data API, the console, the management
    /// API and the command line) reads it.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming the two environments when `name` is neither.
    public init(parsing name: String) throws(CloudStoreError) {
        guard let environment = Environment(rawValue: name) else {
            throw .badRequest("Unknown environment '\(name)': use development or production")
        }
        self = environment
    }
}
