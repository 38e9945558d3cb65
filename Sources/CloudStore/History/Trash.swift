/// What an environment's trash holds in a scope: deleted records not restored or created
/// again since, each at its last version, and deleted zones not created again since.
public struct Trash: Hashable, Sendable {
    /// The deleted records, most recently deleted first.
    public var records: [RecordVersion]
    /// The deleted zones, most recently deleted first.
    public var zones: [TrashedZone]
}
