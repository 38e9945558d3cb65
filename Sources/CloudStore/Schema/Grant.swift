/// A permission a security role can be granted on a record type.
public enum Permission: String, Hashable, Sendable, CaseIterable, Comparable, CustomStringConvertible {
    case read = "READ"
    case create = "CREATE"
    case write = "WRITE"

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// The implicit security roles every container has.
public enum SystemRole {
    /// Everyone, signed in or not.
    public static let world = "_world"
    /// Every signed-in user.
    public static let authenticated = "_icloud"
    /// The user who created the record.
    public static let creator = "_creator"
    /// All three.
    public static let all: Set<String> = [world, authenticated, creator]
}

/// Permissions granted to one role on a record type: `GRANT READ, WRITE TO "_creator"`.
public struct Grant: Hashable, Sendable {
    /// The permissions granted, in the order they were written.
    public var permissions: [Permission]
    /// The role they are granted to.
    public var role: String

    /// Creates a grant.
    public init(_ permissions: [Permission], to role: String) {
        self.permissions = permissions
        self.role = role
    }

    /// The grants CloudKit gives a record type created just in time:
    /// the creator writes, signed-in users create, everyone reads.
    public static let defaults: [Grant] = [
        Grant([.write], to: SystemRole.creator),
        Grant([.create], to: SystemRole.authenticated),
        Grant([.read], to: SystemRole.world),
    ]
}
