/// How much one environment of a container holds, from the counts every write keeps (no table
/// is counted to answer).
public struct EnvironmentUsage: Hashable, Sendable {
    /// Records in every database and zone.
    public var records: Int64
    /// Their size in bytes, as the 1 MB record limit counts it.
    public var recordBytes: Int64
    /// The environment's database file on disk, with its write-ahead log, in bytes.
    public var fileBytes: Int64
    /// The bytes of the record versions its history and trash keep (within `fileBytes`),
    /// counted in storage beside the records'.
    public var historyBytes: Int64

    /// Creates a usage figure.
    public init(records: Int64, recordBytes: Int64, fileBytes: Int64, historyBytes: Int64 = 0) {
        self.records = records
        self.recordBytes = recordBytes
        self.fileBytes = fileBytes
        self.historyBytes = historyBytes
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

extension EnvironmentUsage {
    /// Storage, as the console's pages (Containers, Zones, Usage) and the storage limit count it:
    /// the bytes of the records' fields, as the 1 MB record limit counts them. Neither the
    /// database file (its indexes, the change log, free pages) nor asset files count: the file
    /// is ``fileBytes``, and asset files live in the asset store.
    public static func storageBytes(ofRecordBytes recordBytes: Int64) -> Int64 { recordBytes }

    /// What the environment's records and the versions its history and trash keep take up,
    /// each as ``storageBytes(ofRecordBytes:)`` defines it: what the storage limit counts,
    /// but for the asset files.
    public var storageBytes: Int64 { Self.storageBytes(ofRecordBytes: recordBytes) + historyBytes }
}

extension ZoneUsage {
    /// What the zone's records take up, as ``EnvironmentUsage/storageBytes(ofRecordBytes:)`` defines it.
    public var storageBytes: Int64 { EnvironmentUsage.storageBytes(ofRecordBytes: recordBytes) }
}
