import CloudKitWire
import CloudStore

extension ManagementActions {
    /// The security of an environment's public database: custom roles, each record type's
    /// grants, and who holds which custom role.
    public func security(of container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        let identifier = try existingContainer(container)
        let environment = try Self.environment(environment)
        let schema = try store.schema(identifier, environment)
        let users = Dictionary(uniqueKeysWithValues: try store.users(identifier).map { ($0.userRecordName, $0.name) })
        let holders = try store.roleAssignments(in: identifier, environment).sorted { $0.key < $1.key }
        return [
            "environment": .string(environment.rawValue), "editable": .bool(environment == .development),
            "systemRoles": [.string(SystemRole.world), .string(SystemRole.authenticated), .string(SystemRole.creator)],
            "roles": .array(schema.roles.map(JSONValue.string)),
            "recordTypes": .array(schema.recordTypes.map { type in
                ["name": .string(type.name), "grants": .array(type.grants.map(Self.grantJSON))]
            }),
            "holders": .array(holders.map { user, roles in
                ["userRecordName": .string(user), "name": Self.optional(users[user]), "roles": .array(roles.sorted().map(JSONValue.string))]
            }),
        ]
    }

    /// Replaces a record type's grants in development: `[{role, permissions: [CREATE|READ|WRITE]}]`.
    public func setGrants(
        _ grants: JSONValue, of recordType: String, in container: String, environment: String, as actor: OperatorIdentity
    ) throws -> JSONValue {
        guard let list = grants.arrayValue else { throw CloudStoreError.badRequest("\"grants\" must be an array of {role, permissions}") }
        let parsed = try list.map { grant throws -> Grant in
            guard let role = grant["role"]?.stringValue, let names = grant["permissions"]?.arrayValue else {
                throw CloudStoreError.badRequest("Each grant needs a \"role\" and \"permissions\"")
            }
            return Grant(try names.map { name in
                guard let permission = name.stringValue.flatMap({ Permission(rawValue: $0.uppercased()) }) else {
                    throw CloudStoreError.badRequest("Unknown permission \(name): use CREATE, READ or WRITE")
                }
                return permission
            }, to: role)
        }
        let identifier = try existingContainer(container)
        let environmentValue = try Self.environment(environment)
        try store.setGrants(parsed, of: recordType, in: identifier, environmentValue, by: actor)
        let saved = try store.schema(identifier, environmentValue).recordType(recordType)?.grants ?? []
        return ["name": .string(recordType), "grants": .array(saved.map(Self.grantJSON))]
    }

    /// Declares a custom role in development.
    public func createRole(_ name: String, in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        try store.createRole(name, in: try existingContainer(container), try Self.environment(environment), by: actor)
        return ["role": .string(name), "created": true]
    }

    /// Deletes a custom role in development, with its grants and assignments.
    public func deleteRole(_ name: String, in container: String, environment: String, as actor: OperatorIdentity) throws -> JSONValue {
        try store.deleteRole(name, in: try existingContainer(container), try Self.environment(environment), by: actor)
        return ["role": .string(name), "deleted": true]
    }

    /// Gives a user exactly these custom roles in an environment.
    public func setUserRoles(_ roles: [String], of user: String, in container: String, environment: String, as actor: OperatorIdentity)
        throws -> JSONValue
    {
        let (identifier, found) = try existingUser(user, in: container)
        let environmentValue = try Self.environment(environment)
        try store.setRoles(Set(roles), of: found.userRecordName, in: identifier, environmentValue, by: actor)
        let held = try store.roles(of: found.userRecordName, in: identifier, environmentValue).sorted()
        return ["userRecordName": .string(found.userRecordName), "name": .string(found.name), "roles": .array(held.map(JSONValue.string))]
    }

    /// Gives a user one more custom role, or takes one away, keeping the others.
    public func changeUserRole(_ role: String, of user: String, give: Bool, in container: String, environment: String, as actor: OperatorIdentity)
        throws -> JSONValue
    {
        let (identifier, found) = try existingUser(user, in: container)
        var held = try store.roles(of: found.userRecordName, in: identifier, try Self.environment(environment))
        if give { held.insert(role) } else { held.remove(role) }
        return try setUserRoles(held.sorted(), of: found.userRecordName, in: container, environment: environment, as: actor)
    }

    /// The permission simulator: whether `subject` (`world`, `signedIn`, or a user's name or user
    /// record name) may `permission` (CREATE a record of `recordType`, READ or WRITE the record
    /// `recordName`) in the public database, and the grant or rule that decides, from the code
    /// that enforces it.
    public func simulateAccess(
        subject: String, permission: String, recordType: String, recordName: String?, in container: String, environment: String,
        as actor: OperatorIdentity
    ) throws -> JSONValue {
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
        let decision = try store.simulateAccess(
            permissionValue, recordType: recordType, recordName: recordName.flatMap { $0.isEmpty ? nil : $0 }, as: who, in: identifier,
            try Self.environment(environment))
        return ["allowed": .bool(decision.isAllowed), "rule": .string(decision.rule), "description": .string(decision.description)]
    }

    private static func grantJSON(_ grant: Grant) -> JSONValue {
        ["role": .string(grant.role), "permissions": .array(grant.permissions.map { .string($0.rawValue) })]
    }
}
