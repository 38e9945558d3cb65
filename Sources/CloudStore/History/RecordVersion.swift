/// A version of a record kept in its environment's history after a change replaced it: the
/// record as it was stored, and what replaced it, when and by whom. A deleted record's last
/// version is its place in the trash.
public struct RecordVersion: Hashable, Sendable {
    /// What replaced a kept version.
    public enum Replacement: Int64, Hashable, Sendable, CaseIterable {
        /// A save changed the record.
        case updated = 2
        /// The record was deleted.
        case deleted = 3
        /// The record's zone was deleted with it.
        case zoneDeleted = 4

        /// `updated`, `deleted` or `zoneDeleted`.
        public var name: String {
            switch self {
            case .updated: "updated"
            case .deleted: "deleted"
            case .zoneDeleted: "zoneDeleted"
            }
        }

        /// Whether the record went away (so that this version is in the trash).
        public var isDeletion: Bool { self != .updated }
    }

    /// The version's identifier, unique in its environment and increasing with time.
    public var id: Int64
    /// The database the record was in.
    public var database: DatabaseID
    /// The record as it was: name, type, fields, parent, change tag, created and modified stamps.
    public var record: Record
    /// Its stored size in bytes.
    public var size: Int
    /// What replaced it.
    public var replacement: Replacement
    /// When it was replaced, in milliseconds since 1970.
    public var time: Int64
    /// The user the replacing change was made as; `nil` when unknown.
    public var modifier: String?
    /// The API token or server key the replacing change's request carried, in words
    /// (`API token iOS app`); `nil` for operators.
    public var via: String?
}

/// A deleted zone kept in the trash, so that it can be restored with its records.
public struct TrashedZone: Hashable, Sendable {
    /// The database it was in.
    public var database: DatabaseID
    /// Its name.
    public var zoneName: String
    /// When it was created, in milliseconds since 1970.
    public var created: Int64
    /// When it was deleted.
    public var deleted: Int64
    /// The user it was deleted as; `nil` when unknown.
    public var modifier: String?
    /// The API token or server key the deleting request carried, in words; `nil` for operators.
    public var via: String?
    /// How many record versions it took to the trash.
    public var records: Int
}

/// What replaced the version a change keeps: the change's kind, time and author.
struct VersionReplacement: Hashable, Sendable {
    var kind: RecordVersion.Replacement
    var time: Int64
    var modifier: String?
    var via: String?
}

/// Which kept versions a read returns.
struct VersionFilter: Hashable, Sendable {
    /// Only versions of this database.
    var database: DatabaseID?
    /// Only versions of records of this zone.
    var zoneName: String?
    /// Only versions of these records.
    var recordNames: [String]?
    /// Only versions of records of this type.
    var recordType: String?
    /// Only versions replaced at this time or later.
    var since: Int64?
    /// Only versions older than this one (by identifier): the page after it, newest first.
    var beforeID: Int64?
    /// Only versions replaced in these ways.
    var replacements: Set<RecordVersion.Replacement> = Set(RecordVersion.Replacement.allCases)
    /// Only the newest version of each record (before `replacements` is applied): the trash
    /// keeps a record's last version when that was a deletion.
    var newestOfEachRecord = false
    /// Newest first, rather than oldest first.
    var newestFirst = true
}
