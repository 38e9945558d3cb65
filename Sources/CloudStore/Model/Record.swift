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
    /// The name of the share whose root this record is, if it is one.
    public var share: String?
    /// For a record of type ``Share/recordType``: the share it describes.
    public var sharing: Share? {
        get { sharingBox?.share }
        set { sharingBox = newValue.map(SharingBox.init) }
    }
    /// The share behind a reference: every record is copied many times on its way out, and
    /// nearly none is a share, so the field costs them one word, not a whole share.
    private var sharingBox: SharingBox?

    /// Creates a record.
    public init(
        recordName: String, recordType: String, zoneID: ZoneID, fields: [String: FieldValue] = [:],
        parent: String? = nil, changeTag: String, created: RecordStamp, modified: RecordStamp, share: String? = nil,
        sharing: Share? = nil
    ) {
        self.recordName = recordName
        self.recordType = recordType
        self.zoneID = zoneID
        self.fields = fields
        self.parent = parent
        self.changeTag = changeTag
        self.created = created
        self.modified = modified
        self.share = share
        self.sharingBox = sharing.map(SharingBox.init)
    }

    /// A share as the record CloudKit presents it: of type ``Share/recordType``.
    public init(_ share: Share) {
        self.init(
            recordName: share.recordName, recordType: Share.recordType, zoneID: share.zoneID, fields: share.fields,
            changeTag: share.changeTag, created: share.created, modified: share.modified, sharing: share)
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

/// A share held by reference for ``Record/sharing``; never changed once made.
private final class SharingBox: Hashable, Sendable {
    let share: Share

    init(_ share: Share) { self.share = share }

    static func == (lhs: SharingBox, rhs: SharingBox) -> Bool { lhs.share == rhs.share }
    func hash(into hasher: inout Hasher) { hasher.combine(share) }
}
