/// One entry of a zone's change log.
struct ChangeEntry: Hashable, Sendable {
    /// What happened to the record.
    enum Kind: Int64, Hashable, Sendable {
        case created = 1
        case updated = 2
        case deleted = 3
    }

    /// Position in the zone's log: 1, 2, 3… with no gaps. Given by the store when the entry is
    /// appended (see ``EnvironmentWriter/appendChange(_:in:)``); 0 until then.
    var sequence: Int64 = 0
    /// The record changed.
    var recordName: String
    /// Its type.
    var recordType: String
    /// What happened.
    var kind: Kind
    /// The user who created the record: what decides, in the public database, who may learn of
    /// a deletion when only a record's creator may read it. Empty for changes logged before
    /// the log kept it.
    var creator: String
    /// When the change was made, in milliseconds since 1970.
    var time: Int64
    /// For a deletion in a zone with shared hierarchies: the root of the hierarchy the record
    /// was in, which decides which participants learn of it.
    var tree: String? = nil
    /// The user the change was made as (the modifier a save stamps, the deleter of a
    /// tombstone); `nil` for changes logged before the log kept it.
    var modifier: String? = nil
    /// The API token or server key the change's request carried, packed as the request log
    /// packs it; `nil` for the console's and the CLI's changes and those logged before.
    var via: String? = nil
}
