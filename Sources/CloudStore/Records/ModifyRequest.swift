/// A batch of record operations on one zone, as `records/modify` sends it.
public struct ModifyRequest: Hashable, Sendable {
    /// The operations, applied in order; at most one per record.
    public var operations: [RecordOperation]
    /// The zone every operation applies to.
    public var zoneName: String
    /// Whether one failure fails the whole batch. Applies to custom zones only: the default
    /// zone is never atomic, as in CloudKit.
    public var atomic: Bool
    /// Fields to return for saved records; `nil` returns all, `[]` none.
    public var desiredKeys: [String]?

    /// The most operations one request may carry.
    public static let maximumOperations = 200

    /// Creates a request.
    public init(
        operations: [RecordOperation], zoneName: String = ZoneID.defaultZoneName, atomic: Bool = true,
        desiredKeys: [String]? = nil
    ) {
        self.operations = operations
        self.zoneName = zoneName
        self.atomic = atomic
        self.desiredKeys = desiredKeys
    }
}
