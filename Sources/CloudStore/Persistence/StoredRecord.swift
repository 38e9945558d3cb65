/// A record as storage holds it: the record plus storage's key for it.
struct StoredRecord: Hashable, Sendable {
    /// Storage's key for the record, stable for the record's life and increasing with creation order.
    var key: Int64
    /// The record.
    var record: Record
    /// The record's stored size in bytes, as the 1 MB limit counts it.
    var size: Int
}
