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

    /// A participant's columns, in the order `participant(from:)` reads them.
    static let participantColumns = #""user", permission, type, status, email"#

    /// A participant from a row of `participantColumns`.
    static func participant(from row: some StoredRow) throws -> ShareParticipant {
        let email = row.optionalText(4)
        // An invitation by address no user has accepted yet keeps its place in the key column.
        let user = row.text(0)
        return try ShareParticipant(
            storedUser: email.map(pendingUser) == user ? nil : user, emailAddress: email, permission: row.text(1), type: row.text(2),
            status: row.text(3))
    }

    /// What a participant's row keeps in its `user` column, part of its key: the user's record
    /// name, or, for an invitation by email address no user has accepted yet, a text no user
    /// record name can be.
    static func storedUser(of participant: ShareParticipant) -> String {
        participant.userRecordName ?? pendingUser(participant.emailAddress ?? "")
    }

    private static func pendingUser(_ address: String) -> String {
        "mailto:" + (ShareParticipant.addressKey(address) ?? address.lowercased())
    }
}
