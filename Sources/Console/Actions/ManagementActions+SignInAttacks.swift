import CloudKitWire
import CloudStore

extension ManagementActions {
    /// The operators and app users being guessed at: many failed sign-ins in the last quarter of
    /// an hour, with how many and from how many addresses. Their owners can still sign in; this
    /// is for operators to notice.
    public func signInAttacks(as actor: OperatorIdentity) throws -> SignInAttacksView {
        SignInAttacksView(
            store.signInAttacks().map { attack in
                var container: String?
                if case .user(let identifier, _) = attack.account { container = identifier.rawValue }
                return SignInAttacksView.Account(
                    name: attack.account.name, failures: Int64(attack.failures), lastFailure: attack.lastFailure,
                    addresses: Int64(attack.addresses), container: container)
            })
    }
}
