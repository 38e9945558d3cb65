/// How a per-user export writes what it holds: one line of JSON per record or subscription, and
/// the user's profile. The store decides what belongs to the user; the wire format is the edge's.
public protocol UserExportEncoder: Sendable {
    /// One record (or share) as one line of JSON, without the newline.
    func line(_ record: Record) -> [UInt8]
    /// One subscription of the user in `database` as one line of JSON, without the newline.
    func line(_ subscription: Subscription, in database: DatabaseID) -> [UInt8]
    /// The user's profile as a JSON document.
    func profile(_ user: AppUser) -> [UInt8]
}

/// What a per-user export holds: the archive's members and how much each kind of data counts.
public struct UserExportSummary: Hashable, Sendable {
    /// The user's record name.
    public var userRecordName: String
    /// The user's sign-in name.
    public var name: String
    /// The archive's members, by path, each with how many lines (records, subscriptions) or bytes
    /// (assets) it holds.
    public var members: [String: Int] = [:]
    /// Records (shares included) exported, in every database.
    public var records = 0
    /// Asset files exported.
    public var assets = 0
    /// Subscriptions exported.
    public var subscriptions = 0

    /// A summary.
    public init(userRecordName: String, name: String) {
        self.userRecordName = userRecordName
        self.name = name
    }
}
