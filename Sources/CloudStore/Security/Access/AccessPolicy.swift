/// Decides what a caller may do in a database. The public database follows the grants of the
/// environment's schema — the one source of truth — for the roles `_world` (everyone),
/// `_icloud` (every signed-in user), `_creator` (the user who created the record) and custom
/// roles held by users; server-to-server keys administer it. A private database belongs to its
/// user alone, except what its user shares: other users reach that through their shared database,
/// where ``TransactionAccess`` decides by the shares. The operator may do anything.
struct AccessPolicy {
    let caller: Caller
    let database: DatabaseID
    /// Whether the caller reaches `database`, another user's private database, through shares
    /// (their shared database) rather than as its owner.
    var viaShare = false
    /// Where the request's decisions are recorded, when it keeps them.
    var trace: RequestTrace? = nil

    /// Whether the caller administers the database: the operator everywhere, a
    /// server-to-server key in the public database.
    var isAdministrator: Bool {
        switch caller {
        case .operator: true
        case .server: database.scope == .public
        case .world, .user: false
        }
    }

    /// Refuses callers who may not touch the database at all, recording the refusal in the trace.
    func checkAccess() throws {
        guard database.scope != .public else { return }
        let refusal: (AccessDecision.Reason, CloudStoreError)
        switch caller {
        case .operator:
            return
        case .world:
            refusal = (.signInNeeded(database.scope), .authenticationRequired("The \(database.scope) database needs a signed-in user"))
        case .server:
            refusal = (.serverUsesPublicDatabaseOnly, .accessDenied("Server-to-server keys can use the public database only"))
        case .user(let user, _):
            // Each zone's shares decide, zone by zone and record by record.
            if viaShare, database.scope == .private, user != database.owner { return }
            guard user != database.owner else { return }
            refusal = (.anotherUsersDatabase(database.scope), .accessDenied("The \(database.scope) database belongs to another user"))
        }
        trace?.record(explainDatabase(.denied(refusal.0)))
        throw refusal.1
    }

    /// Refuses callers who may not change anything: the world, which has no user to stamp
    /// changes with (CloudKit's world role only ever reads).
    func checkCanModify() throws {
        try checkAccess()
        if caller.isWorld {
            trace?.record(explainDatabase(.denied(.worldOnlyReads(.write)), permission: .write))
            throw CloudStoreError.authenticationRequired("Changing records needs a signed-in user")
        }
    }

    /// Refuses an operator who would act as a user in production, recording the refusal: a
    /// user's data there is theirs alone.
    func checkOperatorActsInDevelopment(_ environment: Environment) throws {
        guard case .operator = caller, environment == .production, database.scope != .public else { return }
        trace?.record(explainDatabase(.denied(.operatorDevelopmentOnly(database.scope))))
        throw CloudStoreError.accessDenied(
            "Operators see users' \(database.scope) databases in development only; in production they belong to their users")
    }

    /// Decides `permission` on a record of `type`.
    /// - Parameters:
    ///   - type: The record type's definition with its grants.
    ///   - creator: The user who created the record; `nil` for a record being created, whose
    ///     creator would be the caller.
    ///   - roles: The caller's custom roles, asked only when a grant to a custom role could decide.
    func decide(
        _ permission: Permission, on type: RecordTypeDefinition, creator: String?, roles: () throws -> Set<String>
    ) rethrows -> AccessDecision {
        switch caller {
        case .operator:
            return .allowed(.operatorMayDoAnything)
        case .server where database.scope == .public:
            return .allowed(.serverAdministersPublicDatabase)
        case .server:
            return .denied(.serverUsesPublicDatabaseOnly)
        case .world where permission != .read:
            return .denied(.worldOnlyReads(permission))
        case .user, .world:
            break
        }
        if database.scope != .public {
            // checkAccess let the caller in, so the database is the caller's own, or another
            // user's reached through shares, where the record's share decides, not its type.
            return viaShare ? .denied(.notShared(permission)) : .allowed(.ownDatabase(database.scope))
        }

        // Runs for every record of a batch or a page: no allocation on the way to an answer.
        let user = caller.signedInUser
        let isCreator = user != nil && (creator == nil || creator == user)
        func holds(_ role: String) -> Bool {
            switch role {
            case SystemRole.world: true
            case SystemRole.authenticated: user != nil
            case SystemRole.creator: isCreator
            default: false
            }
        }
        if let grant = type.grants.first(where: { $0.permissions.contains(permission) && holds($0.role) }) {
            return .allowed(.grant(grant, permission, creatorIsCaller: creator != nil))
        }
        var custom: Set<String> = []
        if user != nil, type.grants.contains(where: { $0.permissions.contains(permission) && !SystemRole.all.contains($0.role) }) {
            custom = try roles()
            if let grant = type.grants.first(where: { $0.permissions.contains(permission) && custom.contains($0.role) }) {
                return .allowed(.customRole(role: grant.role, permission))
            }
        }
        let held = [SystemRole.world] + (user != nil ? [SystemRole.authenticated] : []) + (isCreator ? [SystemRole.creator] : [])
        return .denied(.noGrant(permission, recordType: type.name, held: held + custom.sorted()))
    }

    /// Which records of `type` the caller may read.
    func readScope(of type: RecordTypeDefinition, roles: () throws -> Set<String>) rethrows -> ReadScope {
        let anyone = try decide(.read, on: type, creator: Self.nobody, roles: roles)
        if anyone.isAllowed { return .all }
        if let user = caller.signedInUser, try decide(.read, on: type, creator: user, roles: roles).isAllowed {
            return .createdBy(user)
        }
        return .none(anyone)
    }

    /// A creator no caller is: asks whether a permission holds whoever created the record.
    private static let nobody = "\u{0}"

    /// Refuses zone changes outside private databases, and callers who may not change anything.
    func checkCanModifyZones() throws {
        try checkCanModify()
        guard database.scope == .private, !viaShare else {
            throw CloudStoreError.badRequest("Custom zones exist only in private databases, not in the \(database.scope) database")
        }
    }
}
