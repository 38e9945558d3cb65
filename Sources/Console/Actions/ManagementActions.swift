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

    /// Runs a change and, when it succeeds, adds it to the audit trail: `action` (such as
    /// `token.revoke`) on `target`, by `actor`.
    func audited<T>(
        _ actor: OperatorIdentity, _ action: String, container: String?, environment: String? = nil, target: String,
        _ change: () throws -> T
    ) throws -> T {
        let result = try change()
        note(actor, action, container: container, environment: environment, target: target)
        return result
    }

    /// Runs a change to a container and, when it succeeds, adds it to the audit trail.
    func audited<T>(
        _ actor: OperatorIdentity, _ action: String, container: ContainerIdentifier, environment: String?, target: String,
        _ change: () throws -> T
    ) throws -> T {
        try audited(actor, action, container: container.rawValue, environment: environment, target: target, change)
    }

    /// Runs a change to an environment of a container and, when it succeeds, adds it to the audit trail.
    func audited<T>(
        _ actor: OperatorIdentity, _ action: String, container: ContainerIdentifier, environment: Environment, target: String,
        _ change: () throws -> T
    ) throws -> T {
        try audited(actor, action, container: container.rawValue, environment: environment.rawValue, target: target, change)
    }

    /// Adds a change already made to the audit trail. A failure to note it is not reported as
    /// the change failing: the change stands either way.
    func note(_ actor: OperatorIdentity, _ action: String, container: String?, environment: String? = nil, target: String) {
        try? store.recordAudit(
            actor: actor.description, operatorName: actor.operatorName, container: container, environment: environment, action: action,
            target: target)
    }

    /// Adds a change already made to a container to the audit trail.
    func note(_ actor: OperatorIdentity, _ action: String, container: ContainerIdentifier, environment: String? = nil, target: String) {
        note(actor, action, container: container.rawValue, environment: environment, target: target)
    }

    /// Adds a change already made to an environment of a container to the audit trail.
    func note(_ actor: OperatorIdentity, _ action: String, container: ContainerIdentifier, environment: Environment, target: String) {
        note(actor, action, container: container.rawValue, environment: environment.rawValue, target: target)
    }

    /// An optional string as JSON: the string or `null`.
    static func optional(_ value: String?) -> JSONValue { value.map(JSONValue.string) ?? .null }
}
