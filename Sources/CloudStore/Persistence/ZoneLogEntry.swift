/// A zone's row in its database's log, as `changes/database` reads it.
struct ZoneLogEntry: Hashable, Sendable {
    /// Position in the database's log.
    var sequence: Int64
    /// The zone's name.
    var zoneName: String
    /// Whether the zone was deleted (and not created again since).
    var deleted: Bool
}
