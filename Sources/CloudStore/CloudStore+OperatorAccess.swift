extension CloudStore {
    // MARK: - What operators may do

    /// What `identity` may do: its operator's role and containers, read once per request; the
    /// local command line is an owner of everything.
    /// - Throws: ``CloudStoreError/authenticationFailed(_:)`` when the operator no longer exists.
    public func operatorAccess(of identity: OperatorIdentity) throws -> OperatorAccess {
        guard identity != .local else { return .everything }
        guard let account = try operatorStorage.operatorAccount(named: identity.operatorName)?.account else {
            throw CloudStoreError.authenticationFailed("The operator \(identity.operatorName) no longer exists")
        }
        return account.access
    }

    /// Lets an operator's action through, or refuses it: the one decision every door asks
    /// (``OperatorAccess/check(_:on:)``). `nil` is whoever holds this store, as `.local`.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` naming the rule that refuses.
    public func authorize(_ actor: OperatorIdentity?, _ permission: OperatorPermission, on target: OperatorTarget = OperatorTarget())
        throws
    {
        guard let actor, actor != .local else { return }
        try operatorAccess(of: actor).check(permission, on: target)
    }

    /// Gives an operator a role and the containers they are limited to (none: every container).
    /// Their sessions and tokens keep working and act with the new role from the next request on.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown operator or container,
    ///   ``CloudStoreError/accessDenied(_:)`` when `actor` is no owner of every container, or
    ///   when the change would leave no owner of every container.
    @discardableResult
    public func setOperatorRole(
        _ role: OperatorRole, containers: [ContainerIdentifier] = [], of name: String, by actor: OperatorIdentity? = nil
    ) throws -> OperatorAccount {
        try authorize(actor, .changes(.operators))
        let scoped = try existingContainers(containers)
        let everyone = try operatorStorage.operators()
        guard var account = everyone.first(where: { $0.name.lowercased() == name.lowercased() }) else {
            throw CloudStoreError.notFound("No operator named '\(name)'")
        }
        let fullOwners = everyone.filter { $0.role == .owner && $0.containers.isEmpty }
        if role != .owner || !scoped.isEmpty, fullOwners.map(\.name) == [account.name] {
            throw CloudStoreError.accessDenied("\(account.name) is the last owner of every container; make another owner first")
        }
        (account.role, account.containers) = (role, scoped)
        guard
            try auditedCatalogChange(
                actor, "operator.role", container: nil, target: "\(account.name) as \(Self.describe(account))",
                { try operatorStorage.setOperatorAccess(role: role, containers: scoped, of: account.name) })
        else {
            throw CloudStoreError.notFound("No operator named '\(name)'")
        }
        return account
    }

    /// `containers`, each checked to exist, sorted and without repeats.
    func existingContainers(_ containers: [ContainerIdentifier]) throws -> [ContainerIdentifier] {
        for container in Set(containers) where try self.container(container) == nil {
            throw CloudStoreError.notFound("Container \(container) does not exist")
        }
        return Set(containers).sorted()
    }

    /// `viewer of iCloud.a, iCloud.b` or `owner of every container`, as the audit trail names an access.
    static func describe(_ account: OperatorAccount) -> String {
        "\(account.role) of "
            + (account.containers.isEmpty ? "every container" : account.containers.map(\.rawValue).joined(separator: ", "))
    }
}
