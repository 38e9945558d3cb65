/// A key for a value that middleware attaches to a request for later handlers.
///
/// ```swift
/// enum AuthenticatedUser: RequestAttributeKey { typealias Value = String }
/// request.attributes[AuthenticatedUser.self] = "alice"
/// ```
public protocol RequestAttributeKey {
    /// The type of the stored value.
    associatedtype Value: Sendable
}

/// Typed, request-scoped values keyed by `RequestAttributeKey` types.
public struct RequestAttributes: Sendable {
    private var storage: [ObjectIdentifier: any Sendable] = [:]

    /// Creates an empty set of attributes.
    public init() {}

    /// The value stored for `key`, or `nil`.
    public subscript<Key: RequestAttributeKey>(key: Key.Type) -> Key.Value? {
        get { storage[ObjectIdentifier(key)] as? Key.Value }
        set { storage[ObjectIdentifier(key)] = newValue }
    }
}
