extension CloudStore {
    // MARK: - Editing security roles and grants

    /// Replaces the grants of a record type in development: who may create, read and write its
    /// records in the public database.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` in production or for a role the schema does not
    ///   declare; ``CloudStoreError/notFound(_:)`` for an unknown record type.
    public func setGrants(
        _ grants: [Grant], of recordType: String, in container: ContainerIdentifier, _ environment: Environment,
        by actor: OperatorIdentity? = nil
    ) throws {
        try requireDevelopment(environment)
        let declared = try schema(container, environment).roles
        for grant in grants where !SystemRole.all.contains(grant.role) && !declared.contains(grant.role) {
            throw CloudStoreError.badRequest("Role '\(grant.role)' is not declared in the \(environment) schema; create it first")
        }
        let merged = Self.merged(grants)
        let given = merged.map { "\($0.permissions.map(\.rawValue).joined(separator: ", ")) to \($0.role)" }.joined(separator: "; ")
        let note = auditNote(
            actor, "security.grants", container, environment, target: "\(recordType): " + (merged.isEmpty ? "none" : given))
        try editRecordType(recordType, in: container, environment, audit: note) { $0.grants = merged }
    }

    /// Declares a custom security role in development.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a bad name or production,
    ///   ``CloudStoreError/exists(_:)`` when it is declared.
    public func createRole(_ name: String, in container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil)
        throws
    {
        try requireDevelopment(environment)
        guard SchemaEvolution.isValidName(name), !name.hasPrefix("_") else {
            throw CloudStoreError.badRequest("Invalid role name '\(name)': use a letter followed by letters, digits or '_'")
        }
        try requireContainer(container)
        let note = auditNote(actor, "security.role.create", container, environment, target: name)
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).writeSchema { writer in
                var schema = try writer.schema()
                guard !schema.roles.contains(name) else { throw CloudStoreError.exists("Role \(name) already exists") }
                schema.roles.append(name)
                try writer.replaceSchema(schema)
                try writer.record(note)
            }
        }
    }

    /// Deletes a custom role in development: its grants go from every record type, and every
    /// user who held it loses it.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an undeclared role.
    public func deleteRole(_ name: String, in container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil)
        throws
    {
        try requireDevelopment(environment)
        try requireContainer(container)
        let note = auditNote(actor, "security.role.delete", container, environment, target: name)
        try movingAuditOutbox(of: container, environment) {
            try self.environment(container, environment).writeSchema { writer in
                var schema = try writer.schema()
                guard schema.roles.contains(name) else { throw CloudStoreError.notFound("Role \(name) does not exist") }
                schema.roles.removeAll { $0 == name }
                schema.recordTypes = schema.recordTypes.map { type in
                    var type = type
                    type.grants.removeAll { $0.role == name }
                    return type
                }
                try writer.replaceSchema(schema)
                try writer.record(note)
            }
        }
    }

    /// Grants with one entry per role, permissions in CloudKit's order, empty ones dropped.
    private static func merged(_ grants: [Grant]) -> [Grant] {
        var order: [String] = []
        var permissions: [String: Set<Permission>] = [:]
        for grant in grants {
            if permissions[grant.role] == nil { order.append(grant.role) }
            permissions[grant.role, default: []].formUnion(grant.permissions)
        }
        return order.compactMap { role in
            let held = permissions[role, default: []].sorted()
            return held.isEmpty ? nil : Grant(held, to: role)
        }
    }

    // MARK: - The permission simulator

    /// Who the permission simulator asks about.
    public enum AccessSubject: Hashable, Sendable {
        /// Anyone, not signed in.
        case world
        /// A signed-in user who holds no custom role and created no record.
        case anySignedInUser
        /// This user, with the roles they hold.
        case user(String)
    }

    /// Whether `subject` may `permission` a record of the public database — an existing one for
    /// READ and WRITE, one of `recordType` to be created for CREATE — and the grant or rule that
    /// decides, answered by the same code that enforces it.
    /// - Parameter recordName: the record, in the default zone, for READ and WRITE.
    /// - Throws: ``CloudStoreError/notFound(_:)`` for an unknown record type, record or user;
    ///   ``CloudStoreError/badRequest(_:)`` for READ or WRITE without a record.
    public func simulateAccess(
        _ permission: Permission, recordType: String, recordName: String?, as subject: AccessSubject, in container: ContainerIdentifier,
        _ environment: Environment
    ) throws -> AccessDecision {
        try explainAccess(permission, recordType: recordType, recordName: recordName, as: subject, in: container, environment).decision
    }

    /// ``simulateAccess(_:recordType:recordName:as:in:_:)`` with every grant and rule weighed,
    /// each with what it gave the subject and why: the decision is the one enforcement takes.
    /// - Throws: what ``simulateAccess(_:recordType:recordName:as:in:_:)`` throws.
    public func explainAccess(
        _ permission: Permission, recordType: String, recordName: String?, as subject: AccessSubject, in container: ContainerIdentifier,
        _ environment: Environment
    ) throws -> AccessExplanation {
        let caller: Caller
        switch subject {
        case .world: caller = .world
        case .anySignedInUser: caller = .user(Self.anySignedInUser)
        case .user(let userRecordName):
            guard try user(userRecordName, in: container) != nil else {
                throw CloudStoreError.notFound("User \(userRecordName) does not exist in \(container)")
            }
            caller = .user(userRecordName)
        }
        let storage = try self.environment(container, environment)
        return try storage.read { reader in
            guard let type = try reader.schema().recordType(recordType) else {
                throw CloudStoreError.notFound("Record type \(recordType) does not exist")
            }
            var creator: String?
            if permission != .create {
                guard let recordName, !recordName.isEmpty else {
                    throw CloudStoreError.badRequest("\(permission) is decided for a record: name one of type \(recordType)")
                }
                guard let zone = try reader.zone(named: ZoneID.defaultZoneName, in: .public),
                    let stored = try reader.record(named: recordName, in: zone), stored.record.recordType == recordType
                else {
                    throw CloudStoreError.notFound("No \(recordType) record \(recordName) in the public database")
                }
                creator = stored.record.created.userRecordName
            }
            let policy = AccessPolicy(caller: caller, database: .public)
            return try policy.explain(
                permission, on: type, creator: creator, recordName: permission == .create ? nil : recordName, zone: ZoneID.defaultZoneName
            ) {
                guard case .user(let userRecordName, _) = caller, userRecordName != Self.anySignedInUser else { return [] }
                return try reader.roles(of: userRecordName)
            }
        }
    }

    /// The user record name the simulator gives "any signed-in user": no user has it, as real
    /// ones begin with `_` and 32 hexadecimal digits.
    static let anySignedInUser = "_any signed-in user"
}
