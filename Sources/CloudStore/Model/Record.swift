/// A record as the store holds it: its identity, type, fields and system fields.
public struct Record: Hashable, Sendable {
    /// Unique within its zone.
    public var recordName: String
    /// The record type, such as `Note`.
    public var recordType: String
    /// The zone the record lives in.
    public var zoneID: ZoneID
    /// The record's fields by name. A field that is absent has no value.
    public var fields: [String: FieldValue]
    /// The record name of the parent record, if any (same zone).
    public var parent: String?
    /// Changes on every save; an update must present the current tag.
    public var changeTag: String
    /// When and by whom the record was created.
    public var created: RecordStamp
    /// When and by whom the record was last changed.
    public var modified: RecordStamp

    /// Creates a record.
    public init(
        recordName: String, recordType: String, zoneID: ZoneID, fields: [String: FieldValue] = [:],
        parent: String? = nil, changeTag: String, created: RecordStamp, modified: RecordStamp
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
        self.fields = fields
        self.parent = parent
        self.changeTag = changeTag
        self.created = created
        self.modified = modified
    }

    /// The record with only the fields named in `desiredKeys` (all fields when `nil`).
    public func keeping(_ desiredKeys: [String]?) -> Record {
        guard let desiredKeys else { return self }
        var copy = self
        let wanted = Set(desiredKeys)
        copy.fields = fields.filter { wanted.contains($0.key) }
        return copy
    }
}
