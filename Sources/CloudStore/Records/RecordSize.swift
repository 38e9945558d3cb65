/// How CloudStore measures a record against CloudKit's 1 MB limit: the bytes of its field names
/// and values (assets count their dictionary, not their file), plus its name, type and parent.
public enum RecordSize {
    /// The most bytes a record may hold, assets excluded.
    public static let limit = 1_048_576

    /// The size of `record` in bytes.
    public static func of(_ record: Record) -> Int {
        var size = record.recordName.utf8.count + record.recordType.utf8.count + (record.parent?.utf8.count ?? 0)
        for (name, value) in record.fields {
            size += name.utf8.count + self.size(of: value)
        }
        return size
    }

    private static func size(of value: FieldValue) -> Int {
        switch value {
        case .string(let string): string.utf8.count
        case .int64, .double, .timestamp: 8
        case .bytes(let bytes): bytes.count
        case .reference(let reference):
            reference.recordName.utf8.count + (reference.zoneID.map { $0.zoneName.utf8.count + $0.ownerRecordName.utf8.count } ?? 0) + 1
        case .asset(let asset):
            [asset.fileChecksum, asset.referenceChecksum, asset.wrappingKey, asset.receipt, asset.downloadURL]
                .reduce(8) { $0 + ($1?.utf8.count ?? 0) }
        case .location: 64
        case .list(_, let elements): elements.reduce(0) { $0 + size(of: $1) }
        }
    }
}
