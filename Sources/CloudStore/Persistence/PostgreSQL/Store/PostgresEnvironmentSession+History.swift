extension PostgresEnvironmentSession {
    // MARK: - Keeping versions

    func keepVersion(of stored: StoredRecord, in zone: StoredZone, replacedBy replacement: VersionReplacement) throws {
        // Copied row to row: the payload is not decoded or encoded again.
        let copy = """
            INSERT INTO \(table("record_history"))(\(HistoryRows.keptColumns))
            SELECT \(HistoryRows.copiedColumns(typeName: "$8") { "$\($0)" }) FROM \(table("records")) r WHERE r.rid = $9
            """
        let parameters =
            Self.values(HistoryRows.copiedParameters(zone, replacement)) + [.text(stored.record.recordType), .integer(stored.key)]
        // The blobs the version holds, known from the fields already read, go in the same
        // statement: no round trip more for a record with assets, nothing more without.
        let hashes = HistoryAssetRows.hashes(of: stored.record.fields)
        count(zone: HistoryRows.statsZone(of: zone), type: 0, records: 0, bytes: Int64(stored.size))
        guard !hashes.isEmpty else {
            try connection.execute(copy, parameters)
            return
        }
        try connection.execute(
            """
            WITH kept AS (\(copy) RETURNING id)
            INSERT INTO \(table("history_assets"))(id, sha) SELECT kept.id, sha FROM kept, unnest($10::text[]) AS sha
            """,
            parameters + [.textArray(hashes)])
    }

    func keepZone(_ zone: StoredZone, replacedBy replacement: VersionReplacement) throws {
        let before = try connection.execute("SELECT coalesce(max(id), 0)::bigint FROM \(table("record_history"))").scalarInteger() ?? 0
        let kept = try connection.execute(
            """
            WITH kept AS (
                INSERT INTO \(table("record_history"))(\(HistoryRows.keptColumns))
                SELECT \(HistoryRows.copiedColumns(typeName: "t.name") { "$\($0)" }) FROM \(table("records")) r
                JOIN \(table("record_types")) t ON t.type = r.type
                WHERE r.zone = $8 ORDER BY r.rid
                RETURNING size)
            SELECT count(*)::bigint, coalesce(sum(size), 0)::bigint FROM kept
            """,
            Self.values(HistoryRows.copiedParameters(zone, replacement)) + [.integer(zone.key)]
        ).first { ($0.integer(0), $0.integer(1)) }
        let records = kept?.0 ?? 0
        count(zone: HistoryRows.statsZone(of: zone), type: 0, records: 0, bytes: kept?.1 ?? 0)
        try connection.execute(HistoryAssetRows.copyZoneReferences(table, { "$\($0)" }), [.integer(zone.key), .integer(before)])
        try connection.execute(
            """
            INSERT INTO \(table("zone_trash"))(zone_key, scope, owner, name, created, time, replaced_by, replaced_via, records)
            VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
            """,
            [
                .integer(zone.key), .integer(StoredCodes.scopeCode(zone.database.scope)), .text(zone.database.owner),
                .text(zone.zoneID.zoneName), .integer(zone.created), .integer(replacement.time), .text(replacement.modifier),
                .text(replacement.via), .integer(Int64(records)),
            ])
    }

    /// Zone keys are never taken again here: a restored zone is an ordinary new zone.
    func restoreZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone {
        try createZone(named: name, in: database, created: created)
    }

    func forgetVersions(before time: Int64) throws -> Int {
        // Versions are kept in the order of their time: the expired ones are those before the
        // first that is not, found without an index on the time that every save would write.
        let forgotten = try connection.execute(
            """
            WITH gone AS (
                DELETE FROM \(table("record_history")) WHERE id < coalesce(
                    (SELECT id FROM \(table("record_history")) WHERE time >= $1 ORDER BY id LIMIT 1),
                    (SELECT coalesce(max(id), 0) + 1 FROM \(table("record_history"))))
                RETURNING size)
            SELECT count(*)::bigint, coalesce(sum(size), 0)::bigint FROM gone
            """, [.integer(time)]
        ).first { ($0.integer(0), $0.integer(1)) }
        count(zone: HistoryRows.forgottenStatsZone, type: 0, records: 0, bytes: -(forgotten?.1 ?? 0))
        let versions = Int(forgotten?.0 ?? 0)
        try connection.execute(HistoryAssetRows.forgetReferences(table))
        return versions + (try connection.execute("DELETE FROM \(table("zone_trash")) WHERE time < $1", [.integer(time)]).affectedRows)
    }

    func forgetHistory(of database: DatabaseID, recordNames: [String]?) throws -> Int {
        let filter = VersionFilter(database: database, recordNames: recordNames)
        let (condition, parameters) = HistoryRows.condition(of: filter, table: table("record_history"), first: 1, { "$\($0)" }) {
            parameter, _ in "h.name = ANY(\(parameter)::text[])"
        }
        let values = Self.values(parameters)
        let chosen = "SELECT h.id FROM \(table("record_history")) h WHERE \(condition)"
        try connection.execute("DELETE FROM \(table("history_assets")) WHERE id IN (\(chosen))", values)
        let forgotten = try connection.execute(
            "WITH gone AS (DELETE FROM \(table("record_history")) WHERE id IN (\(chosen)) RETURNING size) "
                + "SELECT count(*)::bigint, coalesce(sum(size), 0)::bigint FROM gone", values
        ).first { ($0.integer(0), $0.integer(1)) }
        count(zone: HistoryRows.forgottenStatsZone, type: 0, records: 0, bytes: -(forgotten?.1 ?? 0))
        var total = Int(forgotten?.0 ?? 0)
        if recordNames == nil {
            total += try connection.execute(
                "DELETE FROM \(table("zone_trash")) WHERE scope = $1 AND owner = $2",
                [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]
            ).affectedRows
        }
        return total
    }

    func setHistoryRetention(_ retention: Int64?) throws {
        if let retention {
            try connection.execute(
                """
                INSERT INTO \(table("meta"))(key, value) VALUES ('history_retention', $1)
                ON CONFLICT (key) DO UPDATE SET value = excluded.value
                """, [.text(String(retention))])
        } else {
            try connection.execute("DELETE FROM \(table("meta")) WHERE key = 'history_retention'")
        }
    }

    // MARK: - Reading the history

    func versions(matching filter: VersionFilter, limit: Int) throws -> [RecordVersion] {
        let (condition, parameters) = HistoryRows.condition(of: filter, table: table("record_history"), first: 1, { "$\($0)" }) {
            parameter, _ in "h.name = ANY(\(parameter)::text[])"
        }
        return try connection.execute(
            """
            SELECT \(HistoryRows.selected) FROM \(table("record_history")) h WHERE \(condition)
            ORDER BY h.id \(filter.newestFirst ? "DESC" : "ASC") LIMIT $\(parameters.count + 1)
            """,
            Self.values(parameters) + [.integer(Int64(limit))]
        ).map { try HistoryRows.version(from: $0) }
    }

    func version(id: Int64) throws -> RecordVersion? {
        try connection.execute("SELECT \(HistoryRows.selected) FROM \(table("record_history")) h WHERE h.id = $1", [.integer(id)])
            .first { try HistoryRows.version(from: $0) }
    }

    func trashedZones(in database: DatabaseID?) throws -> [TrashedZone] {
        guard let database else {
            return try connection.execute("SELECT \(HistoryRows.zoneSelected) FROM \(table("zone_trash")) z ORDER BY z.id DESC")
                .map { HistoryRows.trashedZone(from: $0) }
        }
        return try connection.execute(
            "SELECT \(HistoryRows.zoneSelected) FROM \(table("zone_trash")) z WHERE z.scope = $1 AND z.owner = $2 ORDER BY z.id DESC",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]
        ).map { HistoryRows.trashedZone(from: $0) }
    }

    func historyBytes() throws -> Int64 {
        try connection.execute("SELECT coalesce(sum(bytes), 0)::bigint FROM \(table("zone_stats")) WHERE \(HistoryRows.statsCondition)")
            .scalarInteger() ?? 0
    }

    func historyRetention() throws -> Int64? {
        try connection.execute("SELECT value FROM \(table("meta")) WHERE key = 'history_retention'").first { Int64($0.text(0)) } ?? nil
    }

    /// PostgreSQL's values for history parameters: a list of names is one array.
    private static func values(_ parameters: [HistoryRows.HistoryValue]) -> [PostgresValue] {
        parameters.map { parameter in
            switch parameter {
            case .integer(let integer): .integer(integer)
            case .text(let text): .text(text)
            case .texts(let texts): .textArray(texts)
            }
        }
    }
}
