/// An ``AccessPolicy`` applied inside one storage transaction: it reads the caller's custom roles
/// at most once, and only when a grant to a custom role could decide.
final class TransactionAccess {
    let policy: AccessPolicy
    private let reader: any EnvironmentReader
    private var roles: Set<String>?

    init(policy: AccessPolicy, reader: any EnvironmentReader) {
        self.policy = policy
        self.reader = reader
    }

    private func heldRoles() throws -> Set<String> {
        if let roles { return roles }
        let read = try policy.caller.signedInUser.map { try reader.roles(of: $0) } ?? []
        roles = read
        return read
    }

    /// Decides `permission` on a record of `type` created by `creator` (`nil` for a new record).
    func decide(_ permission: Permission, on type: RecordTypeDefinition, creator: String?) throws -> AccessDecision {
        try policy.decide(permission, on: type, creator: creator, roles: heldRoles)
    }

    /// Whether the caller may read `record`, whose type `schema` defines.
    func canRead(_ record: Record, in schema: Schema) throws -> Bool {
        if policy.isAdministrator || policy.database.scope != .public { return true }
        guard let type = schema.recordType(record.recordType) else { return false }
        return try decide(.read, on: type, creator: record.created.userRecordName).isAllowed
    }

    /// Whether the caller may learn of a change to a record of `recordType` created by
    /// `creator`: what a change feed asks of a deletion, whose record is gone.
    func canRead(recordType: String, creator: String, in schema: Schema) throws -> Bool {
        if policy.isAdministrator || policy.database.scope != .public { return true }
        guard let type = schema.recordType(recordType) else { return false }
        return try decide(.read, on: type, creator: creator).isAllowed
    }

    /// Which records of `type` the caller may read.
    func readScope(of type: RecordTypeDefinition) throws -> ReadScope {
        if policy.isAdministrator || policy.database.scope != .public { return .all }
        return try policy.readScope(of: type, roles: heldRoles)
    }
}
