import CloudKitWire
import CloudStore

extension ManagementActions {
    /// Every unrevoked management token (never its secret); an operator who is no owner of every
    /// container sees their own.
    public func managementTokens(as actor: OperatorIdentity) throws -> ManagementTokensView {
        ManagementTokensView(try store.managementTokens(visibleTo: actor).map { ManagementTokenView($0) })
    }

    /// Creates a management token acting as `operatorName`, by default the operator who asks;
    /// its secret is in the answer (`token`) and nowhere else, ever. A management token cannot
    /// create one, and only the command line one for another operator (CloudStore's rule).
    public func createManagementToken(for operatorName: String? = nil, name: String, as actor: OperatorIdentity) throws
        -> ManagementTokenView
    {
        let (token, text) = try store.createManagementToken(for: operatorName ?? actor.operatorName, name: name, by: actor)
        return ManagementTokenView(token, secret: text)
    }

    /// Revokes a management token: it is refused from the next request on.
    public func revokeManagementToken(_ id: String, as actor: OperatorIdentity) throws -> ManagementTokenRevocation {
        try store.revokeManagementToken(id, by: actor)
        return ManagementTokenRevocation(id: id)
    }
}
