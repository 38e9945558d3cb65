/// What an environment's trash holds in a scope: deleted records not restored or created
/// again since, each at its last version, and deleted zones not created again since.
public struct Trash: Hashable, Sendable {
    /// The deleted records, most recently deleted first.
    public var records: [RecordVersion]
    /// The deleted zones, most recently deleted first; listed with the first page of records only.
    public var zones: [TrashedZone]
    /// Where the next page of records starts (``CloudStore/trash(_:_:in:limit:after:by:)``'s
    /// `after`): the last record listed, when more follow; `nil` on the last page.
    public var next: Int64? = nil
}
