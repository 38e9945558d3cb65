/// The kept versions of one record, newest first, each with what the change that replaced it
/// changed.
public struct RecordHistory: Hashable, Sendable {
    /// One kept version and the change that replaced it.
    public struct Entry: Hashable, Sendable {
        /// The version.
        public var version: RecordVersion
        /// The fields whose values differ between this version and what replaced it (the next
        /// version, or the record as it is now), by name; every field of the version when the
        /// record was deleted.
        public var changedFields: [String]
        /// Whether the record's parent differs between this version and what replaced it.
        public var parentChanged: Bool
    }

    /// The record's name.
    public var recordName: String
    /// The zone it is in (or was, when deleted).
    public var zoneID: ZoneID
    /// The record as it is now; `nil` when it is deleted.
    public var current: Record?
    /// The kept versions, newest first.
    public var entries: [Entry]

    /// The names of the fields whose values differ between `old` and `new` (`nil`: deleted), sorted.
    static func changedFields(from old: Record, to new: Record?) -> [String] {
        guard let new else { return old.fields.keys.sorted() }
        return Set(old.fields.keys).union(new.fields.keys).filter { old.fields[$0] != new.fields[$0] }.sorted()
    }
}
