/// A zone as storage knows it: the domain's identity plus storage's own key.
struct StoredZone: Hashable, Sendable {
    /// Storage's key for the zone.
    var key: Int64
    /// The zone's identity.
    var zoneID: ZoneID
    /// The database the zone belongs to.
    var database: DatabaseID
    /// When the zone was created, in milliseconds since 1970.
    var created: Int64
}

/// A record as storage holds it: the record plus storage's key for it.
struct StoredRecord: Hashable, Sendable {
    /// Storage's key for the record, stable for the record's life and increasing with creation order.
    var key: Int64
    /// The record.
    var record: Record
    /// The record's stored size in bytes, as the 1 MB limit counts it.
    var size: Int
}

/// One entry of a zone's change log.
struct ChangeEntry: Hashable, Sendable {
    /// What happened to the record.
    enum Kind: Int64, Hashable, Sendable {
        case created = 1
        case updated = 2
        case deleted = 3
    }

    /// Position in the zone's log: 1, 2, 3… with no gaps. Given by the store when the entry is
    /// appended (see ``EnvironmentWriter/appendChange(_:in:)``); 0 until then.
    var sequence: Int64 = 0
    /// The record changed.
    var recordName: String
    /// Its type.
    var recordType: String
    /// What happened.
    var kind: Kind
    /// The user who created the record: what decides, in the public database, who may learn of
    /// a deletion when only a record's creator may read it. Empty for changes logged before
    /// the log kept it.
    var creator: String
    /// When the change was made, in milliseconds since 1970.
    var time: Int64
    /// For a deletion in a zone with shared hierarchies: the root of the hierarchy the record
    /// was in, which decides which participants learn of it.
    var tree: String? = nil
}

/// A zone's row in its database's log, as `changes/database` reads it.
struct ZoneLogEntry: Hashable, Sendable {
    /// Position in the database's log.
    var sequence: Int64
    /// The zone's name.
    var zoneName: String
    /// Whether the zone was deleted (and not created again since).
    var deleted: Bool
}

/// A value of a sort key, as continuation markers carry it.
enum SortKeyValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A row of a query's result: the record and the values of its sort keys, from which the next
/// page's position is built.
struct QueryRow: Hashable, Sendable {
    var stored: StoredRecord
    var sortValues: [SortKeyValue]
}

/// How much a zone holds, as storage counts it on every write.
struct ZoneStats: Hashable, Sendable {
    /// The zone.
    var zone: StoredZone
    /// Its records.
    var records: Int64
    /// Their size in bytes, as the 1 MB record limit counts it.
    var bytes: Int64
}
