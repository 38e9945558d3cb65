/// A record zone as `zones/list` describes it.
public struct Zone: Hashable, Sendable {
    /// The zone's identity.
    public var zoneID: ZoneID
    /// The zone's current sync token: where its change log stands now.
    public var syncToken: String
    /// Whether batches in the zone are atomic: true for custom zones, false for the default zone.
    public var atomic: Bool

    /// Creates a zone description.
    public init(zoneID: ZoneID, syncToken: String, atomic: Bool) {
        self.zoneID = zoneID
        self.syncToken = syncToken
        self.atomic = atomic
    }
}

/// The outcome of one zone lookup or operation.
public enum ZoneResult: Hashable, Sendable {
    /// The zone, as found or created.
    case zone(Zone)
    /// The zone was deleted.
    case deleted(ZoneID)
    /// The lookup or operation failed for this zone.
    case failure(ZoneID, CloudStoreError)
}

/// One operation of a `zones/modify` request.
public struct ZoneOperation: Hashable, Sendable {
    /// Create or delete.
    public enum Kind: String, Hashable, Sendable {
        case create
        case delete
    }

    /// What the operation does.
    public var kind: Kind
    /// The zone it applies to.
    public var zoneName: String

    /// Creates a zone operation.
    public init(_ kind: Kind, zoneName: String) {
        self.kind = kind
        self.zoneName = zoneName
    }
}
