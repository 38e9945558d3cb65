/// Decides what a caller may do in a database. The public database follows the grants of the
/// environment's schema — the one source of truth — for the roles `_world` (everyone),
/// `_icloud` (every signed-in user), `_creator` (the user who created the record) and custom
/// roles held by users; server-to-server keys administer it. A private or shared database
/// belongs to its user alone. The operator may do anything.
struct AccessPolicy {
    let caller: Caller
    let database: DatabaseID

    /// Whether the caller administers the database: the operator everywhere, a
    /// server-to-server key in the public database.
    var isAdministrator: Bool {
        switch caller {
        case .operator: true
        case .server: database.scope == .public
        case .world, .user: false
        }
    }

    /// Refuses callers who may not touch the database at all.
    func checkAccess() throws {
        guard database.scope != .public else { return }
        switch caller {
        case .operator:
            return
        case .world:
            throw CloudStoreError.authenticationRequired("The \(database.scope) database needs a signed-in user")
        case .server:
            throw CloudStoreError.accessDenied("Server-to-server keys can use the public database only")
        case .user(let user, _):
            guard user == database.owner else {
                throw CloudStoreError.accessDenied("The \(database.scope) database belongs to another user")
            }
        }
    }

    /// Refuses callers who may not change anything: the world, which has no user to stamp
    /// changes with (CloudKit's world role only ever reads).
    func checkCanModify() throws {
        try checkAccess()
        if caller.isWorld {
            throw CloudStoreError.authenticationRequired("Changing records needs a signed-in user")
        }
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
            return .allowed("the operator may do anything")
        case .server where database.scope == .public:
            return .allowed("server-to-server keys administer the public database")
        case .server:
            return .denied("server-to-server keys can use the public database only")
        case .world where permission != .read:
            return .denied("the world only reads; \(permission) needs a signed-in user")
        case .user, .world:
            break
        }
        if database.scope != .public {
            // checkAccess let the caller in, so the database is the caller's own.
            return .allowed("the \(database.scope) database belongs to the caller")
        }

        var held = [SystemRole.world]
        if let user = caller.signedInUser {
            held.append(SystemRole.authenticated)
            if creator == nil || creator == user { held.append(SystemRole.creator) }
        }
        let granting = type.grants.filter { $0.permissions.contains(permission) }
        if let grant = granting.first(where: { held.contains($0.role) }) {
            return .allowed(Self.describe(grant, permission, creatorIsCaller: creator != nil))
        }
        if caller.signedInUser != nil, granting.contains(where: { !SystemRole.all.contains($0.role) }) {
            let custom = try roles()
            if let grant = granting.first(where: { custom.contains($0.role) }) {
                return .allowed(#"GRANT \#(permission) TO "\#(grant.role)" (the user holds the role)"#)
            }
            held += custom.sorted()
        }
        return .denied("no grant gives \(permission) on \(type.name) to \(held.joined(separator: ", "))")
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

    private static func describe(_ grant: Grant, _ permission: Permission, creatorIsCaller: Bool) -> String {
        let text = #"GRANT \#(permission) TO "\#(grant.role)""#
        switch grant.role {
        case SystemRole.creator: return text + (creatorIsCaller ? " (the caller created the record)" : " (the caller creates the record)")
        case SystemRole.authenticated: return text + " (the caller is signed in)"
        default: return text
        }
    }

    /// Refuses zone changes outside private databases, and callers who may not change anything.
    func checkCanModifyZones() throws {
        try checkCanModify()
        guard database.scope == .private else {
            throw CloudStoreError.badRequest("Custom zones exist only in private databases, not in the \(database.scope) database")
        }
    }
}
