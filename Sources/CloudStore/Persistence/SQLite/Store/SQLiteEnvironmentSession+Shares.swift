extension SQLiteEnvironmentSession {
    // MARK: - Shares

    func shares(in zone: StoredZone) throws -> [Share] {
        let rows = try connection.statement("SELECT \(ShareRows.columns) FROM shares s WHERE s.zone = ? ORDER BY s.name")
            .rows([.integer(zone.key)]) { row in try ShareRows.share(from: row, zoneID: zone.zoneID) }
        return try rows.map { try withParticipants($0, zoneKey: zone.key) }
    }

    func share(shortGUID: String) throws -> (share: Share, zone: StoredZone)? {
        let found = try connection.statement(
            """
            SELECT \(ShareRows.columns), z.scope, z.owner, z.name, z.created FROM shares s JOIN zones z ON z.zone = s.zone
            WHERE s.guid = ?
            """
        ).firstRow([.text(shortGUID)]) { row -> (Share, StoredZone) in
            let database = DatabaseID(scope: StoredCodes.scope(ofCode: row.integer(13)), owner: row.text(14))
            let zoneID = ZoneID(zoneName: row.text(15), ownerRecordName: database.owner)
            let zone = StoredZone(key: row.integer(0), zoneID: zoneID, database: database, created: row.integer(16))
            return (try ShareRows.share(from: row, zoneID: zoneID), zone)
        }
        guard let (share, zone) = found else { return nil }
        return (try withParticipants(share, zoneKey: zone.key), zone)
    }

    func zonesShared(with user: String) throws -> [StoredZone] {
        try connection.statement(
            """
            SELECT DISTINCT z.zone, z.scope, z.owner, z.name, z.created FROM share_participants p JOIN zones z ON z.zone = p.zone
            WHERE p.user = ? AND p.status = ? AND p.permission != ? ORDER BY z.owner, z.name
            """
        ).rows([.text(user), .text(ShareParticipant.AcceptanceStatus.accepted.rawValue), .text(SharePermission.none.rawValue)]) { row in
            let database = DatabaseID(scope: StoredCodes.scope(ofCode: row.integer(1)), owner: row.text(2))
            return StoredZone(
                key: row.integer(0), zoneID: ZoneID(zoneName: row.text(3), ownerRecordName: database.owner), database: database,
                created: row.integer(4))
        }
    }

    func allShares() throws -> [Share] {
        let rows = try connection.statement(
            "SELECT \(ShareRows.columns), z.owner, z.name FROM shares s JOIN zones z ON z.zone = s.zone ORDER BY z.owner, z.name, s.name"
        ).rows { row in
            (
                key: row.integer(0),
                share: try ShareRows.share(from: row, zoneID: ZoneID(zoneName: row.text(14), ownerRecordName: row.text(13)))
            )
        }
        return try rows.map { try withParticipants($0.share, zoneKey: $0.key) }
    }

    func saveShare(_ share: Share, version: Int64, in zone: StoredZone) throws {
        let key = SQLiteValue.integer(zone.key)
        try connection.statement(
            """
            INSERT INTO shares(zone, name, root, guid, public_permission, version, created, created_by, created_device,
                modified, modified_by, modified_device, payload)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            ON CONFLICT(zone, name) DO UPDATE SET public_permission = excluded.public_permission, version = excluded.version,
                modified = excluded.modified, modified_by = excluded.modified_by, modified_device = excluded.modified_device,
                payload = excluded.payload
            """
        ).execute([
            key, .text(share.recordName), .text(share.rootRecordName), .text(share.shortGUID), .text(share.publicPermission.rawValue),
            .integer(version), .integer(share.created.timestamp), .text(share.created.userRecordName), .text(share.created.deviceID),
            .integer(share.modified.timestamp), .text(share.modified.userRecordName), .text(share.modified.deviceID),
            .blob(RecordPayloadCodec.encode(share.fields)),
        ])
        try connection.statement("DELETE FROM share_participants WHERE zone = ? AND share = ?").execute([key, .text(share.recordName)])
        let insert = try connection.statement(
            "INSERT INTO share_participants(zone, share, position, user, permission, type, status, email) VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        for (position, participant) in share.participants.enumerated() {
            try insert.execute([
                key, .text(share.recordName), .integer(Int64(position)), .text(ShareRows.storedUser(of: participant)),
                .text(participant.permission.rawValue), .text(participant.type.rawValue), .text(participant.acceptanceStatus.rawValue),
                .text(participant.emailAddress),
            ])
        }
    }

    func deleteShare(named name: String, in zone: StoredZone) throws {
        try connection.statement("DELETE FROM shares WHERE zone = ? AND name = ?").execute([.integer(zone.key), .text(name)])
        try connection.statement("DELETE FROM share_participants WHERE zone = ? AND share = ?").execute([.integer(zone.key), .text(name)])
    }

    private func withParticipants(_ share: Share, zoneKey: Int64) throws -> Share {
        var share = share
        share.participants = try connection.statement(
            "SELECT \(ShareRows.participantColumns) FROM share_participants WHERE zone = ? AND share = ? ORDER BY position"
        ).rows([.integer(zoneKey), .text(share.recordName)], ShareRows.participant)
        return share
    }
}
