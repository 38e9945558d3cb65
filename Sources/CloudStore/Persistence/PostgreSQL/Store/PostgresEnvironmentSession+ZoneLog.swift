extension PostgresEnvironmentSession {
    // MARK: - The database-level zone log and tombstone retention

    func changeHorizon(in zone: StoredZone) throws -> Int64 {
        try connection.execute("SELECT horizon FROM \(table("zones")) WHERE zone = $1", [.integer(zone.key)]).scalarInteger() ?? 0
    }

    func lastZoneLogSequence(in database: DatabaseID) throws -> Int64 {
        try changeLog.lastZoneLogSequence(scope: StoredCodes.scopeCode(database.scope), owner: database.owner, on: connection)
    }

    func zoneLog(in database: DatabaseID, after sequence: Int64, limit: Int) throws -> [ZoneLogEntry] {
        try changeLog.zoneLog(
            scope: StoredCodes.scopeCode(database.scope), owner: database.owner, after: sequence, limit: limit, on: connection)
    }

    func zoneLogHorizon(in database: DatabaseID) throws -> Int64 {
        try connection.execute(
            "SELECT horizon FROM \(table("database_counters")) WHERE scope = $1 AND owner = $2",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]
        ).scalarInteger() ?? 0
    }

    func forgetTombstones(before time: Int64) throws -> Int {
        // Each zone's horizon moves to its newest tombstone forgotten; then they go. The zone
        // rows are the counters writers lock last: updated here under the same lock, briefly.
        let zones =
            try connection.execute(
                """
                WITH gone AS (
                    DELETE FROM \(table("changes")) WHERE kind = $1 AND time < $2 RETURNING zone, seq
                ), horizons AS (
                    SELECT zone, max(seq) AS horizon, count(*) AS forgotten FROM gone GROUP BY zone
                ), moved AS (
                    UPDATE \(table("zones")) z SET horizon = greatest(z.horizon, h.horizon) FROM horizons h WHERE z.zone = h.zone RETURNING h.forgotten
                )
                SELECT coalesce(sum(forgotten), 0)::bigint FROM moved
                """,
                [.integer(ChangeEntry.Kind.deleted.rawValue), .integer(time)]
            ).scalarInteger() ?? 0
        let databases =
            try connection.execute(
                """
                WITH gone AS (
                    DELETE FROM \(table("zone_log")) WHERE deleted AND time < $1 RETURNING scope, owner, seq
                ), horizons AS (
                    SELECT scope, owner, max(seq) AS horizon, count(*) AS forgotten FROM gone GROUP BY scope, owner
                ), moved AS (
                    UPDATE \(table("database_counters")) d SET horizon = greatest(d.horizon, h.horizon)
                    FROM horizons h WHERE d.scope = h.scope AND d.owner = h.owner RETURNING h.forgotten
                )
                SELECT coalesce(sum(forgotten), 0)::bigint FROM moved
                """,
                [.integer(time)]
            ).scalarInteger() ?? 0
        return Int(zones + databases)
    }
}
