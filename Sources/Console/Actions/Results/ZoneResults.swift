import CloudKitWire
import CloudStore

/// The zones of one database, the default zone first, each with its records and their bytes.
public struct ZonesView: ManagementResult, Equatable {
    /// One zone.
    public struct Zone: Sendable, Equatable {
        /// Its name.
        public var zoneName: String
        /// The user record name of its owner.
        public var ownerRecordName: String
        /// Whether changes to it are all-or-nothing.
        public var atomic: Bool
        /// Its records.
        public var records: Int64
        /// The bytes of its records.
        public var recordBytes: Int64
    }

    /// The database (`public`, `private` or `shared`).
    public var database: DatabaseScope
    /// The database's owner.
    public var owner: String
    /// The zones.
    public var zones: [Zone]

    init(database: DatabaseScope, owner: String, zones: [Zone]) {
        self.database = database
        self.owner = owner
        self.zones = zones
    }

    public var json: JSONValue {
        [
            "database": .string(database.rawValue), "owner": .string(owner),
            "zones": .array(
                zones.map { zone in
                    [
                        "zoneName": .string(zone.zoneName), "ownerRecordName": .string(zone.ownerRecordName), "atomic": .bool(zone.atomic),
                        "records": .integer(zone.records), "recordBytes": .integer(zone.recordBytes),
                    ]
                }),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        let name = try fields.string("database")
        guard let database = DatabaseScope(rawValue: name) else {
            throw MalformedAnswer(description: "The server's answer names no database '\(name)'")
        }
        self.database = database
        owner = try fields.string("owner")
        zones = try fields.array("zones") { value in
            let zone = try AnswerFields(value)
            return Zone(
                zoneName: try zone.string("zoneName"), ownerRecordName: try zone.string("ownerRecordName"), atomic: try zone.bool("atomic"),
                records: try zone.int64("records"), recordBytes: try zone.int64("recordBytes"))
        }
    }
}

/// A zone created or deleted.
public struct ZoneChangeView: ManagementResult, Equatable {
    /// The zone's name.
    public var zoneName: String
    /// The user record name of its owner.
    public var ownerRecordName: String
    /// Whether it was deleted (else created).
    public var deleted: Bool

    init(_ zoneID: ZoneID, deleted: Bool) {
        zoneName = zoneID.zoneName
        ownerRecordName = zoneID.ownerRecordName
        self.deleted = deleted
    }

    public var json: JSONValue {
        ["zoneName": .string(zoneName), "ownerRecordName": .string(ownerRecordName), deleted ? "deleted" : "created": true]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        zoneName = try fields.string("zoneName")
        ownerRecordName = try fields.string("ownerRecordName")
        deleted = json["deleted"] == true
    }
}
