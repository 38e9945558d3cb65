extension SQLiteEnvironmentSession {
    // MARK: - Keeping versions

    func keepVersion(of stored: StoredRecord, in zone: StoredZone, replacedBy replacement: VersionReplacement) throws {
        // Copied row to row: the payload is not decoded or encoded again. On every save of an
        // existing record, so its values are bound without building anything else.
        try connection.statement(Self.keepVersionSQL).execute([
            .integer(StoredCodes.scopeCode(zone.database.scope)), .text(zone.database.owner), .text(zone.zoneID.zoneName),
            .text(stored.record.recordType), .integer(replacement.kind.rawValue), .integer(replacement.time), .text(replacement.modifier),
            .text(replacement.via), .integer(stored.key),
        ])
        count(zone: HistoryRows.statsZone(of: zone), type: 0, records: 0, bytes: Int64(stored.size))
        // The blobs the version holds, known from the fields already read: nothing more to do
        // for a record without assets, a row per blob for one with them.
        let hashes = HistoryAssetRows.hashes(of: stored.record.fields)
        guard !hashes.isEmpty, connection.changes == 1 else { return }
        let id = connection.lastInsertRowID
        let insert = try connection.statement("INSERT OR IGNORE INTO history_assets(id, sha) VALUES (?, ?)")
        for sha in hashes { try insert.execute([.integer(id), .text(sha)]) }
    }

    func keepZone(_ zone: StoredZone, replacedBy replacement: VersionReplacement) throws {
        let sum = try connection.statement("SELECT coalesce(sum(size), 0) FROM records WHERE zone = ?")
        count(zone: HistoryRows.statsZone(of: zone), type: 0, records: 0, bytes: try sum.scalarInteger([.integer(zone.key)]) ?? 0)
        let before = try connection.statement("SELECT coalesce(max(id), 0) FROM record_history").scalarInteger() ?? 0
        try connection.statement(
            """
            INSERT INTO record_history(\(HistoryRows.keptColumns))
            SELECT \(HistoryRows.copiedColumns(typeName: "t.name") { _ in "?" }) FROM records r JOIN record_types t ON t.type = r.type
            WHERE r.zone = ?
            ORDER BY r.rid
            """
        ).execute(Self.values(HistoryRows.copiedParameters(zone, replacement)) + [.integer(zone.key)])
        let records = connection.changes
        try connection.statement(HistoryAssetRows.copyZoneReferences({ $0 }, { _ in "?" })).execute([.integer(zone.key), .integer(before)])
        try connection.statement(
            """
            INSERT INTO zone_trash(zone_key, scope, owner, name, created, time, replaced_by, replaced_via, records)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        ).execute([
            .integer(zone.key), .integer(StoredCodes.scopeCode(zone.database.scope)), .text(zone.database.owner),
            .text(zone.zoneID.zoneName), .integer(zone.created), .integer(replacement.time), .text(replacement.modifier),
            .text(replacement.via), .integer(Int64(records)),
        ])
    }

    func forgetVersions(before time: Int64) throws -> Int {
        // Versions are kept in the order of their time: the expired ones are those before the
        // first that is not, found without an index on the time that every save would write.
        let first =
            try connection.statement(
                """
                SELECT coalesce((SELECT id FROM record_history WHERE time >= ? ORDER BY id LIMIT 1),
                    (SELECT coalesce(max(id), 0) + 1 FROM record_history))
                """
            ).scalarInteger([.integer(time)]) ?? 0
        let bytes = try connection.statement("SELECT coalesce(sum(size), 0) FROM record_history WHERE id < ?").scalarInteger([
            .integer(first)
        ])
        count(zone: HistoryRows.forgottenStatsZone, type: 0, records: 0, bytes: -(bytes ?? 0))
        try connection.statement("DELETE FROM record_history WHERE id < ?").execute([.integer(first)])
        let versions = connection.changes
        try connection.statement(HistoryAssetRows.forgetReferences { $0 }).execute()
        try connection.statement("DELETE FROM zone_trash WHERE time < ?").execute([.integer(time)])
        return versions + connection.changes
    }

    func forgetHistory(of database: DatabaseID, recordNames: [String]?) throws -> Int {
        let filter = VersionFilter(database: database, recordNames: recordNames)
        let (condition, parameters) = HistoryRows.condition(of: filter, table: "record_history", first: 1, { _ in "?" }) { _, count in
            "h.name IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        }
        let values = Self.values(parameters)
        let chosen = "SELECT h.id FROM record_history h WHERE \(condition)"
        let bytes = try connection.statement("SELECT coalesce(sum(h.size), 0) FROM record_history h WHERE \(condition)").scalarInteger(
            values)
        count(zone: HistoryRows.forgottenStatsZone, type: 0, records: 0, bytes: -(bytes ?? 0))
        try connection.statement("DELETE FROM history_assets WHERE id IN (\(chosen))").execute(values)
        try connection.statement("DELETE FROM record_history WHERE id IN (\(chosen))").execute(values)
        var forgotten = connection.changes
        if recordNames == nil {
            try connection.statement("DELETE FROM zone_trash WHERE scope = ? AND owner = ?").execute([
                .integer(StoredCodes.scopeCode(database.scope)), .text(database.owner),
            ])
            forgotten += connection.changes
        }
        return forgotten
    }

    func setHistoryRetention(_ retention: Int64?) throws {
        if let retention {
            try connection.statement(
                "INSERT INTO meta(key, value) VALUES ('history_retention', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
            ).execute([.text(String(retention))])
        } else {
            try connection.execute("DELETE FROM meta WHERE key = 'history_retention'")
        }
    }

    // MARK: - Reading the history

    func versions(matching filter: VersionFilter, limit: Int) throws -> [RecordVersion] {
        let (condition, parameters) = HistoryRows.condition(of: filter, table: "record_history", first: 1, { _ in "?" }) { _, count in
            "h.name IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
        }
        return try connection.statement(
            """
            SELECT \(HistoryRows.selected) FROM record_history h WHERE \(condition)
            ORDER BY h.id \(filter.newestFirst ? "DESC" : "ASC") LIMIT ?
            """
        ).rows(Self.values(parameters) + [.integer(Int64(limit))]) { try HistoryRows.version(from: $0) }
    }

    func version(id: Int64) throws -> RecordVersion? {
        try connection.statement("SELECT \(HistoryRows.selected) FROM record_history h WHERE h.id = ?")
            .firstRow([.integer(id)]) { try HistoryRows.version(from: $0) }
    }

    func trashedZones(in database: DatabaseID?) throws -> [TrashedZone] {
        guard let database else {
            return try connection.statement("SELECT \(HistoryRows.zoneSelected) FROM zone_trash z ORDER BY z.id DESC")
                .rows { HistoryRows.trashedZone(from: $0) }
        }
        return try connection.statement(
            "SELECT \(HistoryRows.zoneSelected) FROM zone_trash z WHERE z.scope = ? AND z.owner = ? ORDER BY z.id DESC"
        ).rows([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]) { HistoryRows.trashedZone(from: $0) }
    }

    func historyBytes() throws -> Int64 {
        try connection.statement("SELECT coalesce(sum(bytes), 0) FROM zone_stats WHERE \(HistoryRows.statsCondition)").scalarInteger() ?? 0
    }

    func historyRetention() throws -> Int64? {
        try connection.statement("SELECT value FROM meta WHERE key = 'history_retention'").firstRow { Int64($0.text(0)) } ?? nil
    }

    private static let keepVersionSQL = """
        INSERT INTO record_history(\(HistoryRows.keptColumns))
        SELECT \(HistoryRows.copiedColumns(typeName: "?") { _ in "?" }) FROM records r WHERE r.rid = ?
        """

    /// SQLite's values for history parameters: a list of names is one value per name.
    private static func values(_ parameters: [HistoryRows.HistoryValue]) -> [SQLiteValue] {
        parameters.flatMap { parameter -> [SQLiteValue] in
            switch parameter {
            case .integer(let integer): [.integer(integer)]
            case .text(let text): [.text(text)]
            case .texts(let texts): texts.map { .text($0) }
            }
        }
    }
}
