import CloudKitWire
import CloudStore

extension ManagementActions {
    /// Every unrevoked management token (never its secret).
    public func managementTokens(as actor: OperatorIdentity) throws -> JSONValue {
        ["managementTokens": .array(try store.managementTokens().map(Self.managementTokenJSON))]
    }

    /// Creates a management token acting as `operatorName`, by default the operator who asks;
    /// its secret is in the answer (`token`) and nowhere else, ever. A management token cannot
    /// create one, and only the command line one for another operator (CloudStore's rule).
    public func createManagementToken(for operatorName: String? = nil, name: String, as actor: OperatorIdentity) throws -> JSONValue {
        let (token, text) = try store.createManagementToken(for: operatorName ?? actor.operatorName, name: name, by: actor)
        guard case .object(var object) = Self.managementTokenJSON(token) else { return .null }
        object["token"] = .string(text)
        return .object(object)
    }

    /// Revokes a management token: it is refused from the next request on.
    public func revokeManagementToken(_ id: String, as actor: OperatorIdentity) throws -> JSONValue {
        try store.revokeManagementToken(id, by: actor)
        return ["id": .string(id), "revoked": true]
    }

    private static func managementTokenJSON(_ token: ManagementToken) -> JSONValue {
        [
            "id": .string(token.id), "operator": .string(token.operatorName), "name": .string(token.name),
            "created": time(token.created), "lastUsed": token.lastUsed.map(time) ?? .null,
        ]
    }
}
