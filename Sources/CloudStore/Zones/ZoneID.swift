/// Identifies a record zone: its name and the user who owns it.
public struct ZoneID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The zone's name, such as `_defaultZone` or `Notes`.
    public var zoneName: String
    /// The record name of the zone's owner.
    public var ownerRecordName: String

    /// The name of the zone every database has.
    public static let defaultZoneName = "_defaultZone"

    /// Creates a zone identifier.
    public init(zoneName: String, ownerRecordName: String) {
        self.zoneName = zoneName
        self.ownerRecordName = ownerRecordName
    }

    /// The default zone of a database.
    public static func defaultZone(of database: DatabaseID) -> ZoneID {
        ZoneID(zoneName: defaultZoneName, ownerRecordName: database.owner)
    }

    /// Whether this is a database's default zone.
    public var isDefaultZone: Bool { zoneName == Self.defaultZoneName }

    public var description: String { "\(zoneName)(\(ownerRecordName))" }

    public static func < (lhs: Self, rhs: Self) -> Bool {
        (lhs.ownerRecordName, lhs.zoneName) < (rhs.ownerRecordName, rhs.zoneName)
    }
}
