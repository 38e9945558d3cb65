import CloudKitWire
import CloudStore

extension ManagementActions {
    /// The security of an environment's public database: custom roles, each record type's
    /// grants, and who holds which custom role.
    public func security(of container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws -> SecurityView {
        let identifier = try existingContainer(container)
        let schema = try store.schema(identifier, environment)
        let users = try userNames(identifier)
        let holders = try store.roleAssignments(in: identifier, environment).sorted { $0.key < $1.key }
        return SecurityView(
            environment: environment, schema: schema,
            holders: holders.map { user, roles in SecurityView.Holder(userRecordName: user, name: users[user], roles: roles.sorted()) })
    }

    /// Replaces a record type's grants in development.
    public func setGrants(
        _ parsed: [Grant], of recordType: String, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> RecordTypeGrantsView {
        let identifier = try existingContainer(container)
        try store.setGrants(parsed, of: recordType, in: identifier, environment, by: actor)
        let saved = try store.schema(identifier, environment).recordType(recordType)?.grants ?? []
        return RecordTypeGrantsView(name: recordType, grants: saved)
    }

    /// Grants as a request gives them: `[{role, permissions: [CREATE|READ|WRITE]}]`.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` naming what is malformed.
    public static func grants(from grants: JSONValue) throws -> [Grant] {
        guard let list = grants.arrayValue else { throw CloudStoreError.badRequest("\"grants\" must be an array of {role, permissions}") }
        return try list.map { grant throws -> Grant in
            guard let role = grant["role"]?.stringValue, let names = grant["permissions"]?.arrayValue else {
                throw CloudStoreError.badRequest("Each grant needs a \"role\" and \"permissions\"")
            }
            return Grant(
                try names.map { name in
                    guard let permission = name.stringValue.flatMap({ Permission(rawValue: $0.uppercased()) }) else {
                        throw CloudStoreError.badRequest("Unknown permission \(name): use CREATE, READ or WRITE")
                    }
                    return permission
                }, to: role)
        }
    }

    /// Declares a custom role in development.
    public func createRole(_ name: String, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws
        -> RoleChangeView
    {
        try store.createRole(name, in: try existingContainer(container), environment, by: actor)
        return RoleChangeView(role: name, deleted: false)
    }

    /// Deletes a custom role in development, with its grants and assignments.
    public func deleteRole(_ name: String, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity) throws
        -> RoleChangeView
    {
        try store.deleteRole(name, in: try existingContainer(container), environment, by: actor)
        return RoleChangeView(role: name, deleted: true)
    }

    /// Gives a user exactly these custom roles in an environment.
    public func setUserRoles(
        _ roles: [String], of user: String, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> UserRolesView {
        let (identifier, found) = try existingUser(user, in: container)
        try store.setRoles(Set(roles), of: found.userRecordName, in: identifier, environment, by: actor)
        let held = try store.roles(of: found.userRecordName, in: identifier, environment).sorted()
        return UserRolesView(userRecordName: found.userRecordName, name: found.name, roles: held)
    }

    /// Gives a user one more custom role, or takes one away, keeping the others.
    public func changeUserRole(
        _ role: String, of user: String, give: Bool, in container: ContainerIdentifier, environment: Environment, as actor: OperatorIdentity
    ) throws -> UserRolesView {
        let (identifier, found) = try existingUser(user, in: container)
        var held = try store.roles(of: found.userRecordName, in: identifier, environment)
        if give { held.insert(role) } else { held.remove(role) }
        return try setUserRoles(held.sorted(), of: found.userRecordName, in: container, environment: environment, as: actor)
    }

    /// The permission simulator: whether `subject` (`world`, `signedIn`, or a user's name or user
    /// record name) may `permission` (CREATE a record of `recordType`, READ or WRITE the record
    /// `recordName`) in the public database, the grant or rule that decides, from the code that
    /// enforces it, and every grant or rule weighed.
    public func simulateAccess(
        subject: String, permission: String, recordType: String, recordName: String?, in container: ContainerIdentifier,
        environment: Environment, as actor: OperatorIdentity
    ) throws -> AccessDecisionView {
        let identifier = try existingContainer(container)
        guard let permissionValue = Permission(rawValue: permission.uppercased()) else {
            throw CloudStoreError.badRequest("Unknown permission '\(permission)': use CREATE, READ or WRITE")
        }
        let who: CloudStore.AccessSubject
        switch subject {
        case "world", SystemRole.world: who = .world
        case "signedIn", SystemRole.authenticated: who = .anySignedInUser
        default: who = .user(try existingUser(subject, in: container).1.userRecordName)
        }
        let explanation = try store.explainAccess(
            permissionValue, recordType: recordType, recordName: recordName.flatMap { $0.isEmpty ? nil : $0 }, as: who, in: identifier,
            environment)
        return AccessDecisionView(explanation)
    }
}
