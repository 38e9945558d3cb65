/// How much a zone holds, as storage counts it on every write.
struct ZoneStats: Hashable, Sendable {
    /// The zone.
    var zone: StoredZone
    /// Its records.
    var records: Int64
    /// Their size in bytes, as the 1 MB record limit counts it.
    var bytes: Int64
}
