extension PostgresEnvironmentSession {
    // MARK: - Shares

    func shares(in zone: StoredZone) throws -> [Share] {
        let rows = try connection.execute(
            "SELECT \(ShareRows.columns) FROM \(table("shares")) s WHERE s.zone = $1 ORDER BY s.name", [.integer(zone.key)]
        ).map { try ShareRows.share(from: $0, zoneID: zone.zoneID) }
        return try rows.map { try withParticipants($0, zoneKey: zone.key) }
    }

    func share(shortGUID: String) throws -> (share: Share, zone: StoredZone)? {
        let found = try connection.execute(
            """
            SELECT \(ShareRows.columns), z.scope, z.owner, z.name, z.created FROM \(table("shares")) s JOIN \(table("zones")) z ON z.zone = s.zone
            WHERE s.guid = $1
            """,
            [.text(shortGUID)]
        ).first { row -> (Share, StoredZone) in
            let database = Self.database(scope: row.integer(13), owner: row.text(14))
            let zoneID = ZoneID(zoneName: row.text(15), ownerRecordName: row.text(14))
            return (
                try ShareRows.share(from: row, zoneID: zoneID),
                StoredZone(key: row.integer(0), zoneID: zoneID, database: database, created: row.integer(16))
            )
        }
        guard let (share, zone) = found else { return nil }
        return (try withParticipants(share, zoneKey: zone.key), zone)
    }

    func zonesShared(with user: String) throws -> [StoredZone] {
        try connection.execute(
            """
            SELECT DISTINCT z.zone, z.scope, z.owner COLLATE "C", z.name COLLATE "C", z.created
            FROM \(table("share_participants")) p JOIN \(table("zones")) z ON z.zone = p.zone
            WHERE p."user" = $1 AND p.status = $2 AND p.permission <> $3 ORDER BY 3, 4
            """,
            [.text(user), .text(ShareParticipant.AcceptanceStatus.accepted.rawValue), .text(SharePermission.none.rawValue)]
        ).map { row in
            StoredZone(
                key: row.integer(0), zoneID: ZoneID(zoneName: row.text(3), ownerRecordName: row.text(2)),
                database: Self.database(scope: row.integer(1), owner: row.text(2)), created: row.integer(4))
        }
    }

    func allShares() throws -> [Share] {
        let rows = try connection.execute(
            """
            SELECT \(ShareRows.columns), z.owner, z.name FROM \(table("shares")) s JOIN \(table("zones")) z ON z.zone = s.zone
            ORDER BY z.owner COLLATE "C", z.name COLLATE "C", s.name
            """
        ).map { row in
            (
                key: row.integer(0),
                share: try ShareRows.share(from: row, zoneID: ZoneID(zoneName: row.text(14), ownerRecordName: row.text(13)))
            )
        }
        return try rows.map { try withParticipants($0.share, zoneKey: $0.key) }
    }

    func saveShare(_ share: Share, version: Int64, in zone: StoredZone) throws {
        let key = PostgresValue.integer(zone.key)
        try connection.execute(
            """
            INSERT INTO \(table("shares"))(zone, name, root, guid, public_permission, version, created, created_by, created_device,
                modified, modified_by, modified_device, payload)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
            ON CONFLICT (zone, name) DO UPDATE SET public_permission = excluded.public_permission, version = excluded.version,
                modified = excluded.modified, modified_by = excluded.modified_by, modified_device = excluded.modified_device,
                payload = excluded.payload
            """,
            [
                key, .text(share.recordName), .text(share.rootRecordName), .text(share.shortGUID), .text(share.publicPermission.rawValue),
                .integer(version), .integer(share.created.timestamp), .text(share.created.userRecordName), .text(share.created.deviceID),
                .integer(share.modified.timestamp), .text(share.modified.userRecordName), .text(share.modified.deviceID),
                .bytes(RecordPayloadCodec.encode(share.fields)),
            ])
        try connection.execute("DELETE FROM \(table("share_participants")) WHERE zone = $1 AND share = $2", [key, .text(share.recordName)])
        let participants = share.participants
        guard !participants.isEmpty else { return }
        try connection.execute(
            """
            INSERT INTO \(table("share_participants"))(zone, share, position, "user", permission, type, status, email)
            SELECT $1, $2, p.ord - 1, p.u, p.permission, p.type, p.status, p.email
            FROM unnest($3::text[], $4::text[], $5::text[], $6::text[], $7::text[]) WITH ORDINALITY AS p(u, permission, type, status, email, ord)
            """,
            [
                key, .text(share.recordName), .textArray(participants.map(ShareRows.storedUser)),
                .textArray(participants.map(\.permission.rawValue)),
                .textArray(participants.map(\.type.rawValue)), .textArray(participants.map(\.acceptanceStatus.rawValue)),
                .textArray(participants.map(\.emailAddress)),
            ])
    }

    func deleteShare(named name: String, in zone: StoredZone) throws {
        try connection.execute("DELETE FROM \(table("shares")) WHERE zone = $1 AND name = $2", [.integer(zone.key), .text(name)])
        try connection.execute(
            "DELETE FROM \(table("share_participants")) WHERE zone = $1 AND share = $2", [.integer(zone.key), .text(name)])
    }

    private func withParticipants(_ share: Share, zoneKey: Int64) throws -> Share {
        var share = share
        share.participants = try connection.execute(
            "SELECT \(ShareRows.participantColumns) FROM \(table("share_participants")) WHERE zone = $1 AND share = $2 ORDER BY position",
            [.integer(zoneKey), .text(share.recordName)]
        ).map(ShareRows.participant)
        return share
    }
}
