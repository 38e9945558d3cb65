import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Operators and the server secret (the command line's, on the data directory)

    /// Adds a console operator.
    public func addOperator(_ name: String, password: String, as actor: OperatorIdentity) throws -> OperatorView {
        let account = try store.addOperator(name, password: password, by: actor)
        return OperatorView(name: account.name, created: account.created)
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

    /// Replaces the server secret that seals web auth tokens, continuation markers and sync tokens.
    public func rotateSecret(as actor: OperatorIdentity) throws -> SecretRotation {
        try store.rotateSecret(by: actor)
        return SecretRotation()
    }
}
