import CloudKitWire
import CloudStore
import Foundation

/// Every admin action, once: the console's pages, the management JSON API and the command line
/// call these and only translate. Each takes who is acting and typed inputs, and returns a typed
/// result (``ManagementResult``) whose `json` the API sends and which pages and commands read.
/// The rules live in CloudStore; these name the resources, check they belong together and shape
/// the answer.
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
        try existingContainer(try ContainerIdentifier(identifier))
    }

    /// A container a request names, which must exist.
    /// - Throws: ``CloudStoreError/notFound(_:)`` when no such container exists.
    func existingContainer(_ container: ContainerIdentifier) throws -> ContainerIdentifier {
        guard try store.container(container) != nil else {
            throw CloudStoreError.notFound("Container \(container) does not exist")
        }
        return container
    }

    /// An optional string as JSON: the string or `null`.
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
