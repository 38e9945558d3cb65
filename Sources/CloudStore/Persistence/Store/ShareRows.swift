/// An environment's share rows, the same on both backends: the columns a share is read as, and
/// the share and participants they decode to.
enum ShareRows {
    /// A share's columns, its table named `s`: the zone's key first, the payload last.
    static let columns =
        "s.zone, s.name, s.root, s.guid, s.public_permission, s.version, s.created, s.created_by, s.created_device, s.modified, s.modified_by, s.modified_device, s.payload"

    /// A share in `zoneID` from a row that starts with `columns`, without its participants.
    /// - Throws: ``CloudStoreError/internalError(_:)`` when the stored permission or fields are damaged.
    static func share(from row: some StoredRow, zoneID: ZoneID) throws -> Share {
        guard let permission = SharePermission(rawValue: row.text(4)) else {
            throw CloudStoreError.internalError("A stored share is damaged")
        }
        return Share(
            recordName: row.text(1), zoneID: zoneID, rootRecordName: row.optionalText(2), shortGUID: row.text(3),
            publicPermission: permission, participants: [], fields: try RecordPayloadCodec.decode(row.blob(12)),
            changeTag: Share.changeTag(version: row.integer(5)),
            created: RecordStamp(timestamp: row.integer(6), userRecordName: row.text(7), deviceID: row.text(8)),
            modified: RecordStamp(timestamp: row.integer(9), userRecordName: row.text(10), deviceID: row.text(11)))
    }

    /// A participant from a row of its user, permission, type and status.
    static func participant(from row: some StoredRow) throws -> ShareParticipant {
        try ShareParticipant(storedUser: row.text(0), permission: row.text(1), type: row.text(2), status: row.text(3))
    }
}
