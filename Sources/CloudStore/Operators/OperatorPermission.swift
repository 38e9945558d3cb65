/// What an operator's action concerns, as ``OperatorAccess`` tells roles apart.
public enum OperatorArea: String, Hashable, Sendable, CaseIterable {
    /// The list of containers, one container's summary, and making a container.
    case containers
    /// Schemas, record types, indexes, security roles and grants, deploys.
    case schema
    /// Zones, records and change feeds of a database: a viewer reads the public database's only.
    case data
    /// The container's app users and what is theirs: sessions, roles, shares, subscriptions,
    /// push tokens, notification queues, and the contents a reset of development counts.
    case appUsers
    /// The request log and the audit trail.
    case logs
    /// Usage and limits.
    case usage
    /// API tokens and server-to-server keys.
    case credentials
    /// Management tokens: an operator who is not an owner makes and revokes only their own.
    case managementTokens
    /// Operator accounts, and the sign-in attacks on accounts.
    case operators
    /// The server's backups: each holds every container's data and every credential, so only an
    /// owner of every container lists, takes, downloads or deletes them.
    case backups
}

/// What an action needs of the operator who asks: its area, whether it changes state, and the
/// environment it changes whatever the request names (a deploy writes production). Each route of
/// the management API and each console page declares one; ``OperatorAccess/check(_:on:)`` decides.
public struct OperatorPermission: Hashable, Sendable, CustomStringConvertible {
    /// What the action concerns.
    public var area: OperatorArea
    /// Whether it changes anything.
    public var changesState: Bool
    /// The environment the action touches whatever the request names; `nil` for the request's.
    public var environment: Environment?

    /// A permission.
    public init(area: OperatorArea, changesState: Bool, environment: Environment? = nil) {
        self.area = area
        self.changesState = changesState
        self.environment = environment
    }

    /// Reading `area`.
    public static func reads(_ area: OperatorArea, environment: Environment? = nil) -> OperatorPermission {
        OperatorPermission(area: area, changesState: false, environment: environment)
    }

    /// Changing `area`.
    public static func changes(_ area: OperatorArea, environment: Environment? = nil) -> OperatorPermission {
        OperatorPermission(area: area, changesState: true, environment: environment)
    }

    /// `reads schema`, `changes data in production`.
    public var description: String {
        (changesState ? "changes " : "reads ") + area.rawValue + (environment.map { " in \($0)" } ?? "")
    }
}

/// Where an action acts: the container, environment and database a request names, each `nil`
/// when it names none (a server-wide list, the container's users).
public struct OperatorTarget: Hashable, Sendable {
    /// The container.
    public var container: ContainerIdentifier?
    /// The environment.
    public var environment: Environment?
    /// The database.
    public var database: DatabaseScope?

    /// A target.
    public init(container: ContainerIdentifier? = nil, environment: Environment? = nil, database: DatabaseScope? = nil) {
        self.container = container
        self.environment = environment
        self.database = database
    }
}
