/// A database of one environment: the public database, or a user's private or shared database.
public struct DatabaseID: Hashable, Sendable, CustomStringConvertible {
    /// The database's scope.
    public var scope: DatabaseScope
    /// The user whose private or shared database this is; ``DatabaseID/publicOwner`` for the public one.
    public var owner: String

    /// The owner name the public database and its zone carry.
    public static let publicOwner = "_defaultOwner"

    /// The public database.
    public static let `public` = DatabaseID(scope: .public, owner: publicOwner)

    /// A user's private database.
    public static func `private`(_ userRecordName: String) -> DatabaseID {
        DatabaseID(scope: .private, owner: userRecordName)
    }

    /// A user's shared database.
    public static func shared(_ userRecordName: String) -> DatabaseID {
        DatabaseID(scope: .shared, owner: userRecordName)
    }

    /// Creates a database identifier.
    public init(scope: DatabaseScope, owner: String) {
        self.scope = scope
        self.owner = owner
    }

    public var description: String { scope == .public ? "public" : "\(scope.rawValue)(\(owner))" }
}
