/// What one operator may do: their role and the containers they are limited to. ``check(_:on:)``
/// is the one decision every door (console pages, the management API, the command line through
/// it) asks before acting; ``CloudStore/authorize(_:_:on:)`` looks the operator up and asks it.
public struct OperatorAccess: Hashable, Sendable {
    /// The operator's role.
    public var role: OperatorRole
    /// The containers the operator may act in; empty for every container.
    public var containers: Set<ContainerIdentifier>

    /// An access.
    public init(role: OperatorRole, containers: Set<ContainerIdentifier> = []) {
        self.role = role
        self.containers = containers
    }

    /// An owner of every container: the local command line, which holds the data directory.
    public static let everything = OperatorAccess(role: .owner)

    /// Whether the operator may act in `container` at all.
    public func reaches(_ container: ContainerIdentifier) -> Bool { containers.isEmpty || containers.contains(container) }

    /// Whether ``check(_:on:)`` lets the action through.
    public func allows(_ permission: OperatorPermission, on target: OperatorTarget = OperatorTarget()) -> Bool {
        (try? check(permission, on: target)) != nil
    }

    /// Lets the action through, or says why not.
    /// - Throws: ``CloudStoreError/accessDenied(_:)`` naming the rule that refuses.
    public func check(_ permission: OperatorPermission, on target: OperatorTarget) throws {
        try checkContainer(permission, target.container)
        switch role {
        case .owner:
            return
        case .developer:
            try checkDeveloper(permission, environment: permission.environment ?? target.environment)
        case .viewer:
            try checkViewer(permission, database: target.database)
        }
    }

    private func checkContainer(_ permission: OperatorPermission, _ container: ContainerIdentifier?) throws {
        guard !containers.isEmpty else { return }
        let limited = containers.map(\.rawValue).sorted().joined(separator: ", ")
        if let container {
            guard containers.contains(container) else {
                throw CloudStoreError.accessDenied("This operator may act only in \(limited), not in \(container)")
            }
            return
        }
        // What spans every container (the audit trail, operators, a new container) is for those who reach every one;
        // the list of containers is narrowed to theirs, and their own management tokens are theirs.
        let ownsIt = permission.area == .managementTokens || (permission.area == .containers && !permission.changesState)
        guard ownsIt else {
            throw CloudStoreError.accessDenied("This operator may act only in \(limited); this concerns every container")
        }
    }

    private func checkDeveloper(_ permission: OperatorPermission, environment: Environment?) throws {
        switch permission.area {
        case .operators:
            throw CloudStoreError.accessDenied("A developer does not manage operators; ask an owner")
        case .backups:
            throw CloudStoreError.accessDenied("Backups hold every credential and the data of every user: only an owner handles them")
        case .credentials where permission.changesState:
            throw CloudStoreError.accessDenied("A developer does not manage credentials (API tokens, server keys); ask an owner")
        case .containers where permission.changesState:
            throw CloudStoreError.accessDenied("A developer does not create containers; ask an owner")
        case .managementTokens:
            // Their own only: the store checks the token's operator when one is revoked.
            return
        default:
            guard permission.changesState, environment != .development else { return }
            throw CloudStoreError.accessDenied(
                environment == nil
                    ? "A developer changes the development environment only, and this change reaches production too"
                    : "A developer changes the development environment only; production is read-only")
        }
    }

    private func checkViewer(_ permission: OperatorPermission, database: DatabaseScope?) throws {
        guard !permission.changesState else { throw CloudStoreError.accessDenied("A viewer changes nothing") }
        switch permission.area {
        case .containers, .schema, .logs, .usage:
            return
        case .data where database == .public:
            return
        case .data:
            throw CloudStoreError.accessDenied("A viewer does not read the records of private or shared databases")
        case .appUsers, .credentials, .managementTokens, .operators, .backups:
            throw CloudStoreError.accessDenied("A viewer reads schema, logs, usage and the public database only")
        }
    }
}
