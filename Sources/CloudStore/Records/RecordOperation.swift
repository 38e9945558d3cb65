/// One operation of a `records/modify` request, with CloudKit's semantics.
public struct RecordOperation: Hashable, Sendable {
    /// What the operation does.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Creates the record; fails if it exists.
        case create
        /// Changes the given fields; the change tag must be current.
        case update
        /// Changes the given fields whatever the change tag; creates the record if missing.
        case forceUpdate
        /// Replaces all fields; the change tag must be current.
        case replace
        /// Replaces all fields whatever the change tag; creates the record if missing.
        case forceReplace
        /// Deletes the record; the change tag must be current.
        case delete
        /// Deletes the record whatever the change tag.
        case forceDelete

        /// Whether the operation deletes.
        public var isDelete: Bool { self == .delete || self == .forceDelete }
        /// Whether the operation ignores the change tag.
        public var isForced: Bool { self == .forceUpdate || self == .forceReplace || self == .forceDelete }
        /// Whether fields not given are cleared.
        public var replacesFields: Bool { self == .create || self == .replace || self == .forceReplace }
    }

    /// What the operation does.
    public var kind: Kind
    /// The record's name; `nil` lets the store pick a UUID (create and the force variants).
    public var recordName: String?
    /// The record's type; required when the record is created.
    public var recordType: String?
    /// The change tag the client last saw; required by update, replace and delete.
    public var recordChangeTag: String?
    /// Field values to set.
    public var fields: [String: FieldValue]
    /// Fields to clear (sent as `{"value": null}`).
    public var clearedFields: Set<String>
    /// The parent record's name; `.some(nil)` removes the parent, `nil` leaves it as it is.
    public var parent: String??
    /// Fields to return for this operation's record, overriding the request's; `nil` returns all.
    public var desiredKeys: [String]?
    /// For a record of type ``Share/recordType``: what the save asks of the share.
    public var share: ShareChange?

    /// Creates an operation.
    public init(
        _ kind: Kind, recordName: String? = nil, recordType: String? = nil, recordChangeTag: String? = nil,
        fields: [String: FieldValue] = [:], clearedFields: Set<String> = [], parent: String?? = nil,
        desiredKeys: [String]? = nil, share: ShareChange? = nil
    ) {
        self.kind = kind
        self.recordName = recordName
        self.recordType = recordType
        self.recordChangeTag = recordChangeTag
        self.fields = fields
        self.clearedFields = clearedFields
        self.parent = parent
        self.desiredKeys = desiredKeys
        self.share = share
    }
}
