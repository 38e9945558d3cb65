import CloudKitWire
import CloudStore
import Foundation

/// Every admin action, once: the console's pages, the management JSON API and the command line
/// call these and only translate. Each takes who is acting and returns a view model as JSON,
/// which the API sends as it is and pages render through their templates. The rules live in
/// CloudStore; these name the resources, check they belong together and shape the answer.
public struct ManagementActions: Sendable {
    /// The store acted on.
    public let store: CloudStore

    /// Actions on `store`.
    public init(store: CloudStore) {
        self.store = store
    }

    /// A container identifier from a request.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a malformed identifier,
    ///   ``CloudStoreError/notFound(_:)`` when no such container exists.
    func existingContainer(_ identifier: String) throws -> ContainerIdentifier {
        let container = try ContainerIdentifier(identifier)
        guard try store.container(container) != nil else {
            throw CloudStoreError.notFound("Container \(identifier) does not exist")
        }
        return container
    }

    /// An environment named in a request.
    static func environment(_ name: String) throws -> Environment {
        guard let environment = Environment(rawValue: name) else {
            throw CloudStoreError.badRequest("Unknown environment '\(name)': use development or production")
        }
        return environment
    }

    /// A time in milliseconds since 1970 as JSON: the number, as CloudKit sends times.
    static func time(_ milliseconds: Int64) -> JSONValue { .integer(milliseconds) }

    /// An optional string as JSON: the string or `null`.
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
