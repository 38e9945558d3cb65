extension PostgresEnvironmentSession {
    // MARK: - Counts kept by every write

    func count(zone: Int64, type: Int64, records: Int64, bytes: Int64) {
        statsDeltas[StatsKey(zone: zone, type: type), default: (0, 0)].records += records
        statsDeltas[StatsKey(zone: zone, type: type), default: (0, 0)].bytes += bytes
    }

    var storedBytesChange: Int64 { statsDeltas.values.reduce(0) { $0 + $1.bytes } }

    func storedBytes() throws -> Int64 {
        let stored =
            try connection.execute(
                """
                SELECT (SELECT coalesce(sum(bytes), 0) FROM \(table("zone_stats")))::bigint
                    + (SELECT coalesce(sum(stored), 0) FROM \(table("asset_blobs")))::bigint
                """
            ).scalarInteger() ?? 0
        return stored + storedBytesChange
    }

    func createdZoneCount() throws -> Int {
        Int(
            try connection.execute("SELECT count(*) FROM \(table("zones")) WHERE name <> $1", [.text(ZoneID.defaultZoneName)])
                .scalarInteger() ?? 0)
    }

    func zoneStats() throws -> [ZoneStats] {
        try connection.execute(
            "SELECT z.zone, z.scope, z.owner, z.name, z.created, s.records, s.bytes FROM \(table("zone_stats")) s JOIN \(table("zones")) z ON z.zone = s.zone"
        ).map { row in
            let database = Self.database(scope: row.integer(1), owner: row.text(2))
            return ZoneStats(
                zone: StoredZone(
                    key: row.integer(0), zoneID: ZoneID(zoneName: row.text(3), ownerRecordName: row.text(2)), database: database,
                    created: row.integer(4)),
                records: row.integer(5), bytes: row.integer(6))
        }
    }

    func recordStats(in zone: StoredZone, withinTrees roots: [String]) throws -> (counts: [String: Int64], bytes: Int64) {
        let (condition, parameters) = PostgresQuerySQLBuilder.withinTrees(roots, zone: zone.key, records: table("records"), first: 2)
        let rows = try connection.execute(
            "SELECT r.type, count(*)::bigint, sum(r.size)::bigint FROM \(table("records")) r WHERE r.zone = $1 AND \(condition) GROUP BY r.type",
            [.integer(zone.key)] + parameters
        ).map { ($0.integer(0), $0.integer(1), $0.integer(2)) }
        var counts: [String: Int64] = [:]
        for (type, count, _) in rows {
            if let name = catalog.typeNames[type] { counts[name] = count }
        }
        return (counts, rows.reduce(0) { $0 + $1.2 })
    }

    func recordCounts(in zones: [StoredZone]?) throws -> [String: Int64] {
        let rows: PostgresResult
        if let zones {
            guard !zones.isEmpty else { return [:] }
            rows = try connection.execute(
                "SELECT type, sum(records)::bigint FROM \(table("type_stats")) WHERE zone = ANY($1::bigint[]) GROUP BY type",
                [.integerArray(zones.map(\.key))])
        } else {
            rows = try connection.execute("SELECT type, sum(records)::bigint FROM \(table("type_stats")) GROUP BY type")
        }
        var counts: [String: Int64] = [:]
        for (type, count) in rows.map({ ($0.integer(0), $0.integer(1)) }) {
            if let name = catalog.typeNames[type] { counts[name] = count }
        }
        return counts
    }
}
