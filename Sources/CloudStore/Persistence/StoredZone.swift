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
