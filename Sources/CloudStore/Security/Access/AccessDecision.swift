/// The outcome of an access check: allowed or not, and the grant or rule that decided it, in
/// words an operator reads (`GRANT READ TO "_world"`, `no grant gives WRITE to _world, _icloud`).
/// Enforcement and the console's permission simulator both get their answers here.
public struct AccessDecision: Hashable, Sendable, CustomStringConvertible {
    /// Whether the operation may go ahead.
    public var isAllowed: Bool
    /// Why, kept as data: checks run per record, and the words are needed only when shown.
    let reason: Reason

    /// The grant or rule that decided.
    public var rule: String { reason.description }

    /// A decision as the request log kept it: whether it allowed, and its rule in words.
    public static func recorded(isAllowed: Bool, rule: String) -> AccessDecision {
        AccessDecision(isAllowed: isAllowed, reason: .recorded(rule))
    }

    /// An allowing decision.
    static func allowed(_ reason: Reason) -> AccessDecision { AccessDecision(isAllowed: true, reason: reason) }
    /// A denying decision.
    static func denied(_ reason: Reason) -> AccessDecision { AccessDecision(isAllowed: false, reason: reason) }

    /// `allowed: …` or `denied: …`.
    public var description: String { (isAllowed ? "allowed: " : "denied: ") + rule }

    /// The rules a decision can rest on.
    enum Reason: Hashable, Sendable, CustomStringConvertible {
        case operatorMayDoAnything
        case serverAdministersPublicDatabase
        case serverUsesPublicDatabaseOnly
        case worldOnlyReads(Permission)
        case ownDatabase(DatabaseScope)
        case notShared(Permission)
        case grant(Grant, Permission, creatorIsCaller: Bool)
        case customRole(role: String, Permission)
        case noGrant(Permission, recordType: String, held: [String])
        case signInNeeded(DatabaseScope)
        case anotherUsersDatabase(DatabaseScope)
        case operatorDevelopmentOnly(DatabaseScope)
        case shareRootDeletedByOwner
        case shareChangedByOwner
        case callerRule(String)
        /// A decision read back from the request log: its rule as it was recorded.
        case recorded(String)

        var description: String {
            switch self {
            case .operatorMayDoAnything: "the operator may do anything"
            case .serverAdministersPublicDatabase: "server-to-server keys administer the public database"
            case .serverUsesPublicDatabaseOnly: "server-to-server keys can use the public database only"
            case .worldOnlyReads(let permission): "the world only reads; \(permission) needs a signed-in user"
            case .ownDatabase(let scope): "the \(scope) database belongs to the caller"
            case .notShared(let permission): "no share gives the caller \(permission) on the record"
            case .grant(let grant, let permission, let creatorIsCaller):
                switch grant.role {
                case SystemRole.creator:
                    #"GRANT \#(permission) TO "\#(grant.role)""#
                        + (creatorIsCaller ? " (the caller created the record)" : " (the caller creates the record)")
                case SystemRole.authenticated: #"GRANT \#(permission) TO "\#(grant.role)" (the caller is signed in)"#
                default: #"GRANT \#(permission) TO "\#(grant.role)""#
                }
            case .customRole(let role, let permission): #"GRANT \#(permission) TO "\#(role)" (the user holds the role)"#
            case .noGrant(let permission, let recordType, let held):
                // READ is given by READ grants alone: WRITE lets a caller change a record, not read it.
                "no grant gives \(permission) on \(recordType) to \(held.joined(separator: ", "))"
                    + (permission == .read ? " (WRITE does not give READ)" : "")
            case .signInNeeded(let scope): "the \(scope) database needs a signed-in user"
            case .anotherUsersDatabase(let scope): "the \(scope) database belongs to another user"
            case .operatorDevelopmentOnly(let scope): "operators see users' \(scope) databases in development only"
            case .shareRootDeletedByOwner: "the root of a shared hierarchy is deleted by its owner only"
            case .shareChangedByOwner: "only the share's owner changes a share; a participant may only leave it"
            case .callerRule(let rule): rule
            case .recorded(let rule): rule
            }
        }
    }
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
