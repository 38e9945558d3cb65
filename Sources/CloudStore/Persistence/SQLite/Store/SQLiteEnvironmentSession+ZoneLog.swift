extension SQLiteEnvironmentSession {
    // MARK: - The database-level zone log and tombstone retention

    /// A zone of a database, by name: what a row of `zone_log` stands for.
    struct ZoneLogKey: Hashable {
        var scope: Int64
        var owner: String
        var name: String
    }

    /// What this transaction did to a zone, as its log row will say.
    struct ZoneLogTouch {
        var deleted: Bool
        var time: Int64
    }

    /// Notes that the zone was created, changed or deleted in this transaction.
    func touchZoneLog(_ zone: StoredZone, deleted: Bool, time: Int64) {
        let key = ZoneLogKey(scope: StoredCodes.scopeCode(zone.database.scope), owner: zone.database.owner, name: zone.zoneID.zoneName)
        // A zone touched again moves after the others: the log orders zones by their latest change.
        if let index = zoneLogTouches.firstIndex(where: { $0.key == key }) {
            if index == zoneLogTouches.count - 1 {
                zoneLogTouches[index].touch = ZoneLogTouch(deleted: deleted, time: time)
                return
            }
            zoneLogTouches.remove(at: index)
        }
        zoneLogTouches.append((key, ZoneLogTouch(deleted: deleted, time: time)))
    }

    /// Moves each zone this transaction touched to the end of its database's log: one row per
    /// zone however many records changed, so a batch pays for it once.
    func flushZoneLog() throws {
        guard !zoneLogTouches.isEmpty else { return }
        // The next sequence is taken in the same statement (one statement per touched zone, on
        // every write).
        let upsert = try connection.statement(Self.zoneLogUpsert)
        for (key, touch) in zoneLogTouches {
            try upsert.execute([
                .integer(key.scope), .text(key.owner), .text(key.name), .integer(touch.deleted ? 1 : 0), .integer(touch.time),
            ])
        }
        zoneLogTouches = []
    }

    func changeHorizon(in zone: StoredZone) throws -> Int64 {
        try connection.statement("SELECT horizon FROM zones WHERE zone = ?").scalarInteger([.integer(zone.key)]) ?? 0
    }

    func lastZoneLogSequence(in database: DatabaseID) throws -> Int64 {
        try lastZoneLogSequence(scope: StoredCodes.scopeCode(database.scope), owner: database.owner)
    }

    /// The database's latest sequence.
    private func lastZoneLogSequence(scope: Int64, owner: String) throws -> Int64 {
        try connection.statement(Self.latestZoneLogSequenceQuery).scalarInteger([.integer(scope), .text(owner)]) ?? 0
    }

    private static let latestZoneLogSequenceQuery = "SELECT \(latestZoneLogSequence)"
    private static let zoneLogUpsert = """
        INSERT INTO zone_log(scope, owner, name, seq, deleted, time) VALUES (?1, ?2, ?3, \(latestZoneLogSequence) + 1, ?4, ?5)
        ON CONFLICT(scope, owner, name) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, time = excluded.time
        """

    /// A database's latest zone log sequence as an SQL expression of its scope (`?1`) and owner
    /// (`?2`): forgotten tombstones leave the horizon behind, so that sequences are never given
    /// twice. The horizon's key is ``zoneLogHorizonKey(scope:owner:)`` spelled in SQL, so that
    /// a write does not build it.
    private static let latestZoneLogSequence = """
        max(coalesce((SELECT max(seq) FROM zone_log WHERE scope = ?1 AND owner = ?2), 0), \
        coalesce((SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'zone_log_horizon:' || ?1 || ':' || ?2), 0))
        """

    func zoneLog(in database: DatabaseID, after sequence: Int64, limit: Int) throws -> [ZoneLogEntry] {
        try connection.statement("SELECT seq, name, deleted FROM zone_log WHERE scope = ? AND owner = ? AND seq > ? ORDER BY seq LIMIT ?")
            .rows([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .integer(sequence), .integer(Int64(limit))]) {
                row in
                ZoneLogEntry(sequence: row.integer(0), zoneName: row.text(1), deleted: row.integer(2) != 0)
            }
    }

    func zoneLogHorizon(in database: DatabaseID) throws -> Int64 {
        try zoneLogHorizon(scope: StoredCodes.scopeCode(database.scope), owner: database.owner)
    }

    private func zoneLogHorizon(scope: Int64, owner: String) throws -> Int64 {
        try connection.statement("SELECT value FROM meta WHERE key = ?")
            .firstRow([.text(Self.zoneLogHorizonKey(scope: scope, owner: owner))]) { Int64($0.text(0)) ?? 0 } ?? 0
    }

    /// The `meta` key of a database's zone log horizon (as ``latestZoneLogSequence`` spells it).
    static func zoneLogHorizonKey(scope: Int64, owner: String) -> String { "zone_log_horizon:\(scope):\(owner)" }

    func forgetTombstones(before time: Int64) throws -> Int {
        rewritesZones()
        var forgotten = 0
        // Record tombstones: each zone's horizon moves to the newest one forgotten.
        let horizons = try connection.statement(
            "SELECT zone, max(seq) FROM changes WHERE kind = ? AND time < ? GROUP BY zone"
        ).rows([.integer(ChangeEntry.Kind.deleted.rawValue), .integer(time)]) { ($0.integer(0), $0.integer(1)) }
        for (zone, horizon) in horizons {
            try connection.statement("UPDATE zones SET horizon = max(horizon, ?) WHERE zone = ?").execute([
                .integer(horizon), .integer(zone),
            ])
            try connection.statement("DELETE FROM changes WHERE zone = ? AND kind = ? AND time < ?")
                .execute([.integer(zone), .integer(ChangeEntry.Kind.deleted.rawValue), .integer(time)])
            forgotten += connection.changes
        }
        // Zone tombstones: each database's horizon, kept in `meta`, moves the same way.
        let zoneHorizons = try connection.statement(
            "SELECT scope, owner, max(seq) FROM zone_log WHERE deleted = 1 AND time < ? GROUP BY scope, owner"
        ).rows([.integer(time)]) { ($0.integer(0), $0.text(1), $0.integer(2)) }
        for (scope, owner, horizon) in zoneHorizons {
            try connection.statement(
                """
                INSERT INTO meta(key, value) VALUES (?, ?)
                ON CONFLICT(key) DO UPDATE SET value = CAST(max(CAST(value AS INTEGER), CAST(excluded.value AS INTEGER)) AS TEXT)
                """
            ).execute([.text(Self.zoneLogHorizonKey(scope: scope, owner: owner)), .text(String(horizon))])
            try connection.statement("DELETE FROM zone_log WHERE scope = ? AND owner = ? AND deleted = 1 AND time < ?")
                .execute([.integer(scope), .text(owner), .integer(time)])
            forgotten += connection.changes
        }
        return forgotten
    }
}
