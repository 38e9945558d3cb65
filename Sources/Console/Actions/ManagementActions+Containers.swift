import CloudKitWire
import CloudStore

extension ManagementActions {
    /// Every container, with records, record bytes and file bytes per environment (kept by the
    /// store as it writes: nothing is counted on the way).
    public func containers(as actor: OperatorIdentity) throws -> ContainersView {
        // An operator limited to some containers sees only those.
        let access = try store.operatorAccess(of: actor)
        let containers = try store.containers().filter { access.reaches($0.identifier) }
        return ContainersView(try containers.map { try containerView($0) })
    }

    /// Creates a container.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for an identifier not of the form
    ///   `iCloud.…`, ``CloudStoreError/exists(_:)`` when it exists.
    public func createContainer(_ identifier: String, as actor: OperatorIdentity) throws -> ContainerView {
        try containerView(try store.createContainer(try ContainerIdentifier(identifier), by: actor))
    }

    /// One container.
    public func container(_ identifier: String, as actor: OperatorIdentity) throws -> ContainerView {
        guard let info = try store.container(try ContainerIdentifier(identifier)) else {
            throw CloudStoreError.notFound("Container \(identifier) does not exist")
        }
        return try containerView(info)
    }

    private func containerView(_ info: ContainerInfo) throws -> ContainerView {
        ContainerView(info, usage: try store.usage(of: info.identifier))
    }
}
