/// Values captured from the path by a route pattern (`:name` segments and a trailing `*name`).
public struct PathParameters: Sendable, Sequence {
    @usableFromInline var storage: [(name: String, value: String)]

    /// Creates an empty set of parameters.
    public init() { storage = [] }

    /// Creates an empty set with room for `capacity` values.
    init(capacity: Int) {
        storage = []
        storage.reserveCapacity(capacity)
    }

    /// Creates parameters from name/value pairs.
    public init(_ pairs: [(name: String, value: String)]) { storage = pairs }

    /// The decoded value captured for `name`, or `nil`.
    public subscript(name: String) -> String? {
        for entry in storage where entry.name == name { return entry.value }
        return nil
    }

    /// The number of captured values.
    public var count: Int { storage.count }

    public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> { storage.makeIterator() }

    mutating func append(name: String, value: String) { storage.append((name, value)) }
}
