import CloudKitWire
import CloudStore

extension ManagementActions {
    // MARK: - Operators and the server secret (the command line's, on the data directory)

    /// Adds a console operator.
    public func addOperator(_ name: String, password: String, as actor: OperatorIdentity) throws -> JSONValue {
        let account = try audited(actor, "operator.add", container: nil, target: name) { try store.addOperator(name, password: password) }
        return ["name": .string(account.name), "created": Self.time(account.created)]
    }

    /// Removes an operator: their console sessions end and their management tokens stop working.
    public func removeOperator(_ name: String, as actor: OperatorIdentity) throws -> JSONValue {
        try audited(actor, "operator.remove", container: nil, target: name) { try store.removeOperator(name) }
        return ["name": .string(name), "removed": true]
    }

    /// Sets an operator's password; their console sessions end.
    public func setOperatorPassword(_ password: String, of name: String, as actor: OperatorIdentity) throws -> JSONValue {
        try audited(actor, "operator.password", container: nil, target: name) { try store.setOperatorPassword(password, of: name) }
        return ["name": .string(name), "passwordSet": true]
    }

    /// Replaces the server secret that seals web auth tokens, continuation markers and sync tokens.
    public func rotateSecret(as actor: OperatorIdentity) throws -> JSONValue {
        try audited(actor, "secret.rotate", container: nil, target: "server secret") { try store.rotateSecret() }
        return ["rotated": true]
    }
}
