extension SQLiteEnvironmentSession {
    // MARK: - Counts kept by every write

    /// What one zone and type gained or lost in this transaction, not yet written.
    struct StatsKey: Hashable {
        var zone: Int64
        var type: Int64
    }

    /// Counts a record added (`records` 1), removed (-1) or resized (0).
    func count(zone: Int64, type: Int64, records: Int64, bytes: Int64) {
        statsDeltas[StatsKey(zone: zone, type: type), default: (0, 0)].records += records
        statsDeltas[StatsKey(zone: zone, type: type), default: (0, 0)].bytes += bytes
    }

    /// Writes the counts this transaction changed: one statement per zone and type touched for
    /// each table, however many records, so a batch pays for its counts once. A zone's total
    /// takes each of its types' changes in turn rather than being summed here first: nearly
    /// every transaction touches one type in one zone, where summing would only cost a table.
    func flushStats() throws {
        guard !statsDeltas.isEmpty else { return }
        let types = try connection.statement(
            """
            INSERT INTO type_stats(type, zone, records) VALUES (?, ?, ?)
            ON CONFLICT(type, zone) DO UPDATE SET records = records + excluded.records
            """)
        let zones = try connection.statement(
            """
            INSERT INTO zone_stats(zone, records, bytes) VALUES (?, ?, ?)
            ON CONFLICT(zone) DO UPDATE SET records = records + excluded.records, bytes = bytes + excluded.bytes
            """)
        for (key, delta) in statsDeltas {
            if delta.records != 0 { try types.execute([.integer(key.type), .integer(key.zone), .integer(delta.records)]) }
            if delta.records != 0 || delta.bytes != 0 {
                try zones.execute([.integer(key.zone), .integer(delta.records), .integer(delta.bytes)])
            }
        }
        statsDeltas = [:]
    }

    var storedBytesChange: Int64 { statsDeltas.values.reduce(0) { $0 + $1.bytes } }

    func storedBytes() throws -> Int64 {
        try (connection.statement("SELECT coalesce(sum(bytes), 0) FROM zone_stats").scalarInteger() ?? 0) + storedBytesChange + assetBytes()
    }

    func createdZoneCount() throws -> Int {
        Int(
            try connection.statement("SELECT count(*) FROM zones WHERE name != ?").firstRow([.text(ZoneID.defaultZoneName)]) {
                $0.integer(0)
            } ?? 0)
    }

    func zoneStats() throws -> [ZoneStats] {
        try connection.statement(
            "SELECT z.zone, z.scope, z.owner, z.name, z.created, s.records, s.bytes FROM zone_stats s JOIN zones z ON z.zone = s.zone"
        ).rows { row in
            let scope = StoredCodes.scope(ofCode: row.integer(1))
            let owner = row.text(2)
            let database = scope == .public ? DatabaseID.public : DatabaseID(scope: scope, owner: owner)
            return ZoneStats(
                zone: StoredZone(
                    key: row.integer(0), zoneID: ZoneID(zoneName: row.text(3), ownerRecordName: owner), database: database,
                    created: row.integer(4)),
                records: row.integer(5), bytes: row.integer(6))
        }
    }

    func recordStats(in zone: StoredZone, withinTrees roots: [String]) throws -> (counts: [String: Int64], bytes: Int64) {
        let (condition, parameters) = SQLiteQuerySQLBuilder.withinTrees(roots, zone: zone.key)
        let rows = try connection.statement(
            "SELECT r.type, count(*), sum(r.size) FROM records r WHERE r.zone = ? AND \(condition) GROUP BY r.type"
        )
        .rows([.integer(zone.key)] + parameters) { ($0.integer(0), $0.integer(1), $0.integer(2)) }
        var counts: [String: Int64] = [:]
        for (type, count, _) in rows {
            if let name = catalog.typeNames[type] { counts[name] = count }
        }
        return (counts, rows.reduce(0) { $0 + $1.2 })
    }

    func recordCounts(in zones: [StoredZone]?) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        let rows: [(Int64, Int64)]
        if let zones {
            guard !zones.isEmpty else { return [:] }
            let marks = SQLiteValue.placeholders(zones.count)
            rows = try connection.statement("SELECT type, sum(records) FROM type_stats WHERE zone IN (\(marks)) GROUP BY type")
                .rows(zones.map { .integer($0.key) }) { ($0.integer(0), $0.integer(1)) }
        } else {
            rows = try connection.statement("SELECT type, sum(records) FROM type_stats GROUP BY type").rows {
                ($0.integer(0), $0.integer(1))
            }
        }
        for (type, count) in rows {
            if let name = catalog.typeNames[type] { counts[name] = count }
        }
        return counts
    }
}
