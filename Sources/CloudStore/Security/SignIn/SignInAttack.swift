/// An account people sign in to: a console operator or an app user of a container. Names are
/// as typed, trimmed and lower-cased, whether or not such an account exists.
public enum SignInAccount: Hashable, Sendable {
    /// A console operator.
    case `operator`(name: String)
    /// An app user of a container.
    case user(container: ContainerIdentifier, name: String)

    /// The name, as sign-in compares it.
    public var name: String {
        switch self {
        case .operator(let name), .user(_, let name): name
        }
    }
}

/// An account being guessed at: many failed sign-ins in the last quarter of an hour.
public struct SignInAttack: Hashable, Sendable {
    /// The account.
    public var account: SignInAccount
    /// Failed sign-ins remembered, from every address.
    public var failures: Int
    /// When the latest failed, in milliseconds since 1970.
    public var lastFailure: Int64
    /// How many client addresses failed on it.
    public var addresses: Int
}

extension CloudStore {
    /// The operator and app-user accounts being guessed at: those with many failed sign-ins in
    /// the last quarter of an hour, the most failures first. Held in this process's memory, as
    /// the throttle is: a server sharing a PostgreSQL database with others reports its own.
    public func signInAttacks() -> [SignInAttack] {
        signInThrottle.attacks(now: now)
    }
}
