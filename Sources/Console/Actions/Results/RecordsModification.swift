import CloudKitWire
import CloudStore

/// What a records modification did: the store's result for each operation, and the answer as
/// CloudKit's `records/modify` sends it, which the management API passes on.
public struct RecordsModification: Sendable {
    /// One result per operation, in order: the record saved or deleted, or why not.
    public let results: [RecordResult]
    /// The answer as CloudKit sends it: `{records}`, one entry per operation.
    public let json: JSONValue
}
