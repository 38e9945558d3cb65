/// A console operator: someone who runs the server's containers from the console, the
/// management API and the command line. Operators are separate from the users of apps.
public struct OperatorAccount: Hashable, Sendable {
    /// The name the operator signs in with; unique, compared without case.
    public var name: String
    /// When the account was made, in milliseconds since 1970.
    public var created: Int64
    /// What the operator may do (``OperatorAccess``); operators made before roles are owners.
    public var role: OperatorRole
    /// The containers the operator may act in, sorted; empty for every container.
    public var containers: [ContainerIdentifier]

    /// Creates an account description.
    public init(name: String, created: Int64, role: OperatorRole = .owner, containers: [ContainerIdentifier] = []) {
        self.name = name
        self.created = created
        self.role = role
        self.containers = containers
    }

    /// What the operator may do, as the store decides it.
    public var access: OperatorAccess { OperatorAccess(role: role, containers: Set(containers)) }
}

/// An operator signed in to the console: who, the form token that must come with every change,
/// and when the session ends.
public struct OperatorSession: Hashable, Sendable {
    /// The session's id as stored: the SHA-256 of the secret the browser holds, so the catalog
    /// alone opens no session.
    public var id: String
    /// The operator.
    public var operatorName: String
    /// The token every state-changing request of this session must carry (CSRF).
    public var csrfToken: String
    /// When the session began, in milliseconds since 1970.
    public var created: Int64
    /// When it ends however much it is used, in milliseconds since 1970.
    public var expires: Int64

    /// Creates a session description.
    public init(id: String, operatorName: String, csrfToken: String, created: Int64, expires: Int64) {
        self.id = id
        self.operatorName = operatorName
        self.csrfToken = csrfToken
        self.created = created
        self.expires = expires
    }
}

/// A management token: what scripts and `cumulus --server` send as `Authorization: Bearer …` to
/// act as an operator. Its secret is shown once, when it is made; the catalog keeps a hash.
public struct ManagementToken: Hashable, Sendable {
    /// A short public id, shown in lists and named when revoking.
    public var id: String
    /// The operator the token acts as.
    public var operatorName: String
    /// A label for people.
    public var name: String
    /// When it was made, in milliseconds since 1970.
    public var created: Int64
    /// When it was last used, to the minute, if ever.
    public var lastUsed: Int64?

    /// Creates a token description.
    public init(id: String, operatorName: String, name: String, created: Int64, lastUsed: Int64?) {
        self.id = id
        self.operatorName = operatorName
        self.name = name
        self.created = created
        self.lastUsed = lastUsed
    }
}

/// Who is acting in the console, the management API or the command line, as the audit trail
/// names them.
public enum OperatorIdentity: Hashable, Sendable, CustomStringConvertible {
    /// An operator signed in to the console, in the session with `sessionID` (the digest of its
    /// secret, as ``OperatorSession/id``), from `client` (the request's client address).
    case session(operatorName: String, sessionID: String, client: String? = nil)
    /// A script with a management token, from `client` (the request's client address).
    case token(operatorName: String, tokenID: String, client: String? = nil)
    /// Someone with the data directory at hand: the local command line.
    case local

    /// The operator's name; `local` for the command line.
    public var operatorName: String {
        switch self {
        case .session(let name, _, _), .token(let name, _, _): name
        case .local: "local"
        }
    }

    /// Where the operator acts from, as the audit trail records it; `nil` for the command line.
    public var clientAddress: String? {
        switch self {
        case .session(_, _, let client), .token(_, _, let client): client
        case .local: nil
        }
    }

    /// What the asset download URLs made for this operator stay valid with.
    public var assetCredential: AssetCredential {
        switch self {
        case .session(_, let id, _): .operatorSession(id)
        case .token(_, let id, _): .managementToken(id)
        case .local: .none
        }
    }

    /// `alice`, `alice (token 1f2e…)` or `local command line`.
    public var description: String {
        switch self {
        case .session(let name, _, _): name
        case .token(let name, let id, _): "\(name) (token \(id))"
        case .local: "local command line"
        }
    }
}
