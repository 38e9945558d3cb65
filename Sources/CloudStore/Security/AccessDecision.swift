/// The outcome of an access check: allowed or not, and the grant or rule that decided it, in
/// words an operator reads (`GRANT READ TO "_world"`, `no grant gives WRITE to _world, _icloud`).
/// Enforcement and the console's permission simulator both get their answers here.
public struct AccessDecision: Hashable, Sendable, CustomStringConvertible {
    /// Whether the operation may go ahead.
    public var isAllowed: Bool
    /// The grant or rule that decided.
    public var rule: String

    /// An allowing decision.
    static func allowed(_ rule: String) -> AccessDecision { AccessDecision(isAllowed: true, rule: rule) }
    /// A denying decision.
    static func denied(_ rule: String) -> AccessDecision { AccessDecision(isAllowed: false, rule: rule) }

    /// `allowed: …` or `denied: …`.
    public var description: String { (isAllowed ? "allowed: " : "denied: ") + rule }
}

/// Which records of a type a caller may read, as a query applies it.
enum ReadScope: Hashable, Sendable {
    /// Every record.
    case all
    /// Only records this user created (`GRANT READ TO "_creator"`).
    case createdBy(String)
    /// None: no grant gives the caller READ.
    case none(AccessDecision)
}
