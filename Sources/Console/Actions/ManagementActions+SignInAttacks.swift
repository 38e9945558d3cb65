import CloudKitWire
import CloudStore

extension ManagementActions {
    /// The operators and app users being guessed at: many failed sign-ins in the last quarter of
    /// an hour, with how many and from how many addresses. Their owners can still sign in; this
    /// is for operators to notice.
    public func signInAttacks(as actor: OperatorIdentity) throws -> JSONValue {
        ["accounts": .array(store.signInAttacks().map { attack in
            var object: JSONObject = [
                "name": .string(attack.account.name), "failures": .integer(Int64(attack.failures)),
                "lastFailure": Self.time(attack.lastFailure), "addresses": .integer(Int64(attack.addresses)),
            ]
            switch attack.account {
            case .operator:
                object["kind"] = "operator"
            case .user(let container, _):
                object["kind"] = "user"
                object["container"] = .string(container.rawValue)
            }
            return .object(object)
        })]
    }
}
