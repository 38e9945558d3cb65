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
    /// The columns of `seeds` a summary is read from, in order.
    static let summaryColumns = "name, created, created_by, scope, owner, selection, record_types, records, blobs, blob_bytes"

    /// A seed's summary from the columns of ``summaryColumns``.
    static func summary(_ row: some StoredRow, _ container: ContainerIdentifier) -> SeedSummary {
        SeedSummary(
            container: container, name: row.text(0), created: row.integer(1), createdBy: row.text(2),
            database: DatabaseID(scope: StoredCodes.scope(ofCode: row.integer(3)), owner: row.text(4)), selection: row.text(5),
            recordTypes: row.text(6).split(separator: "\n").map(String.init), records: Int(row.integer(7)), blobs: Int(row.integer(8)),
            blobBytes: row.integer(9))
    }
}
