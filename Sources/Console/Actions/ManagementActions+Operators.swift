import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Operators, their roles, and the server secret

    /// Every console operator, with their role and containers.
    public func operators(as actor: OperatorIdentity) throws -> OperatorsView {
        try store.authorize(actor, .reads(.operators))
        return OperatorsView(try store.operators().map(OperatorView.init))
    }

    /// Adds a console operator with a role, limited to `containers` (none: every container).
    public func addOperator(
        _ name: String, password: String, role: OperatorRole = .owner, containers: [String] = [], as actor: OperatorIdentity
    ) throws -> OperatorView {
        OperatorView(
            try store.addOperator(name, password: password, role: role, containers: try Self.containers(containers), by: actor))
    }

    /// Gives an operator a role and the containers they are limited to (none: every container).
    public func setOperatorRole(_ role: OperatorRole, containers: [String] = [], of name: String, as actor: OperatorIdentity) throws
        -> OperatorView
    {
        OperatorView(try store.setOperatorRole(role, containers: try Self.containers(containers), of: name, by: actor))
    }

    /// Removes an operator: their console sessions end and their management tokens stop working.
    public func removeOperator(_ name: String, as actor: OperatorIdentity) throws -> OperatorChangeView {
        try store.removeOperator(name, by: actor)
        return OperatorChangeView(name: name, change: .removed)
    }

    /// Sets an operator's password; their console sessions end.
    public func setOperatorPassword(_ password: String, of name: String, as actor: OperatorIdentity) throws -> OperatorChangeView {
        try store.setOperatorPassword(password, of: name, by: actor)
        return OperatorChangeView(name: name, change: .passwordSet)
    }

    /// Container identifiers from a request, parsed.
    static func containers(_ identifiers: [String]) throws -> [ContainerIdentifier] {
        try identifiers.map { try ContainerIdentifier($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// Replaces the server secret that seals web auth tokens, continuation markers and sync tokens.
    public func rotateSecret(as actor: OperatorIdentity) throws -> SecretRotation {
        try store.rotateSecret(by: actor)
        return SecretRotation()
    }
}
