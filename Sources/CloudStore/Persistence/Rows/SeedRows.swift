/// A seed's records and blobs as both backends keep them: a record as one value of bytes (its
/// zone, identity, creation and fields), so that neither backend needs a column per part.
enum SeedRows {
    static let damaged = CloudStoreError.internalError("A seed's stored record is damaged")
    private static let formatVersion: UInt8 = 1

    /// The bytes kept for `record`: what a restore writes back, without its change tag and its
    /// last change (a restore stamps both anew).
    static func encode(_ record: SeedRecord) -> [UInt8] {
        var writer = BinaryWriter()
        writer.byte(formatVersion)
        writer.string(record.zoneName)
        writer.string(record.record.recordName)
        writer.string(record.record.recordType)
        writer.optionalString(record.record.parent)
        writer.signed(record.record.created.timestamp)
        writer.string(record.record.created.userRecordName)
        writer.string(record.record.created.deviceID)
        writer.blob(RecordPayloadCodec.encode(record.record.fields))
        return writer.bytes
    }

    /// The record `bytes` keep, in `database`.
    static func decode(_ bytes: [UInt8], database: DatabaseID) throws -> SeedRecord {
        var reader = BinaryReader(bytes: bytes, damaged: damaged)
        guard try reader.byte() == formatVersion else { throw damaged }
        let zoneName = try reader.string()
        let name = try reader.string()
        let type = try reader.string()
        let parent = try reader.optionalString()
        let created = RecordStamp(timestamp: try reader.signed(), userRecordName: try reader.string(), deviceID: try reader.string())
        let fields = try RecordPayloadCodec.decode(try reader.blob())
        let record = Record(
            recordName: name, recordType: type, zoneID: ZoneID(zoneName: zoneName, ownerRecordName: database.owner), fields: fields,
            parent: parent, changeTag: "", created: created, modified: created)
        return SeedRecord(zoneName: zoneName, record: record)
    }
}
