extension CloudStore {
    // MARK: - Custom roles held by users

    /// The custom security roles a user holds in a container's environment.
    public func roles(of userRecordName: String, in container: ContainerIdentifier, _ environment: Environment) throws -> Set<String> {
        try self.environment(container, environment).read { try $0.roles(of: userRecordName) }
    }

    /// Every user of a container's environment who holds a custom role, with the roles held.
    public func roleAssignments(in container: ContainerIdentifier, _ environment: Environment) throws -> [String: Set<String>] {
        try self.environment(container, environment).read { try $0.roleAssignments() }
    }

    /// Gives a user exactly `roles`, custom roles of the environment's schema, as CloudKit keeps
    /// them on the user's record. Takes effect on the user's next request.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown user,
    ///   ``CloudStoreError/badRequest(_:)`` for a role the schema does not declare (the implicit
    ///   `_world`, `_icloud` and `_creator` cannot be given).
    public func setRoles(
        _ roles: Set<String>, of userRecordName: String, in container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws {
        guard let found = try user(userRecordName, in: container) else {
            throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
        }
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).write { writer in
                let declared = try writer.schema().roles
                for role in roles.sorted() where !declared.contains(role) {
                    throw CloudStoreError.badRequest(
                        SystemRole.all.contains(role)
                            ? "\(role) is held implicitly and cannot be given to a user"
                            : "Role '\(role)' is not declared in the \(environment) schema; declare it with CREATE ROLE first")
                }
                try writer.setRoles(roles, of: userRecordName)
                // The roles as they are now, named as the audit trail gives them.
                let held = try writer.roles(of: userRecordName).sorted()
                try writer.record(
                    auditNote(
                        actor, "security.user-roles", container, environment,
                        target: "\(found.name): " + (held.isEmpty ? "none" : held.joined(separator: ", "))))
            }
        }
    }

    /// Takes every role from a user who is being removed.
    func setRoles(_ roles: Set<String>, ofRemovedUser userRecordName: String, in container: ContainerIdentifier, _ environment: Environment)
        throws
    {
        try self.environment(container, environment).write { try $0.setRoles(roles, of: userRecordName) }
    }
}
