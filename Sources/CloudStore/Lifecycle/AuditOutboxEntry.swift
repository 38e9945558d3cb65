/// An audit entry an environment's transaction left in the environment's outbox, where the
/// environment's storage is apart from the catalog's (SQLite: a file of its own), waiting to be
/// moved into the catalog's audit trail.
struct AuditOutboxEntry: Sendable {
    /// Its place in the outbox, by which it is removed once moved.
    var id: Int64
    /// A random key, the same wherever the entry is: the catalog notes the keys it took, so an
    /// entry moved again (the move interrupted before its removal) is written once.
    var key: String
    /// The entry.
    var entry: AuditEntry
}
