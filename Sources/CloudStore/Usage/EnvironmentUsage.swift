/// How much one environment of a container holds, from the counts every write keeps (no table
/// is counted to answer).
public struct EnvironmentUsage: Hashable, Sendable {
    /// Records in every database and zone.
    public var records: Int64
    /// Their size in bytes, as the 1 MB record limit counts it.
    public var recordBytes: Int64
    /// The environment's database file on disk, with its write-ahead log, in bytes.
    public var fileBytes: Int64

    /// Creates a usage figure.
    public init(records: Int64, recordBytes: Int64, fileBytes: Int64) {
        self.records = records
        self.recordBytes = recordBytes
        self.fileBytes = fileBytes
    }
}

/// How much one zone holds.
public struct ZoneUsage: Hashable, Sendable {
    /// The zone.
    public var zoneID: ZoneID
    /// The database it belongs to.
    public var database: DatabaseID
    /// Its records.
    public var records: Int64
    /// Their size in bytes.
    public var recordBytes: Int64

    /// Creates a usage figure.
    public init(zoneID: ZoneID, database: DatabaseID, records: Int64, recordBytes: Int64) {
        self.zoneID = zoneID
        self.database = database
        self.records = records
        self.recordBytes = recordBytes
    }
}
