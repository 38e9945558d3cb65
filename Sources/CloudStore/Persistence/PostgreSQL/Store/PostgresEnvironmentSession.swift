/// Reads and writes one environment's PostgreSQL schema within one transaction, for the domain.
/// Lives only as long as the transaction it was made for.
///
/// In a write, change-log entries, zone-log touches and the counts of records and bytes wait in
/// memory and are written by the transaction's last statements (``finalStatements()``), sent
/// with `COMMIT`: each takes the row lock of the zone or database it counts, so those locks are
/// held for one round trip, in one global order (counts by type and zone, counts by zone, zone
/// counters, database counters — each ascending), and two writers can never wait on each other
/// in a cycle.
final class PostgresEnvironmentSession: EnvironmentWriter {
    let connection: PostgresConnection
    /// The environment's PostgreSQL schema.
    let schemaName: String
    /// ``schemaName`` quoted.
    let namespace: String
    /// The schema as this transaction sees it; replaced when the transaction changes the schema.
    var catalog: SchemaCatalog
    /// The write transaction, with its pending change-log entries; `nil` in a read.
    let transaction: PostgresWriteTransaction?
    /// Records and bytes gained or lost per zone and type, written by ``finalStatements()``.
    var statsDeltas: [StatsKey: (records: Int64, bytes: Int64)] = [:]
    /// Whether this write changed the schema, for the store to tell every process after commit.
    var changedSchema = false
    /// Whether schema changes leave their new indexes to be built concurrently after the commit.
    let buildsIndexesLater: Bool

    /// The key of a count: a record type in a zone.
    struct StatsKey: Hashable, Comparable {
        var zone: Int64
        var type: Int64
        static func < (a: Self, b: Self) -> Bool { (a.type, a.zone) < (b.type, b.zone) }
    }

    /// What a rolled-back savepoint or group job must take back besides the rows.
    private typealias Undoable = (catalog: SchemaCatalog, statsDeltas: [StatsKey: (records: Int64, bytes: Int64)], changedSchema: Bool)
    private var undoable: Undoable {
        get { (catalog, statsDeltas, changedSchema) }
        set { (catalog, statsDeltas, changedSchema) = newValue }
    }
    private var beforeJob: Undoable?

    init(
        connection: PostgresConnection, schemaName: String, catalog: SchemaCatalog, transaction: PostgresWriteTransaction? = nil,
        buildsIndexesLater: Bool = false, numbering: PostgresChangeLog.Numbering = .counterRow
    ) {
        self.connection = connection
        self.buildsIndexesLater = buildsIndexesLater
        self.schemaName = schemaName
        namespace = PostgresIdentifier.quote(schemaName)
        self.catalog = catalog
        self.transaction = transaction
        changeLog = transaction?.changeLog ?? PostgresChangeLog(schema: namespace, numbering: numbering)
    }

    /// The table `name` of this environment, qualified.
    func table(_ name: String) -> String { "\(namespace).\(name)" }

    func schema() throws -> Schema { catalog.schema }

    /// The environment's incarnation (moved by a reset) joined to the store's (moved when the
    /// store finds itself on another cluster): a token from before either has expired.
    func incarnation() throws -> String {
        try connection.execute(
            // A store copied from SQLite keeps the environment's incarnation alone, as SQLite's
            // tokens carry it, until the catalog's is first set (see StoreMigration).
            """
            SELECT CASE WHEN s.incarnation = '' THEN m.value ELSE m.value || '.' || s.incarnation END
            FROM \(table("meta")) m, catalog.settings s WHERE m.key = 'incarnation'
            """
        ).first { $0.text(0) } ?? ""
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let saved = undoable
        do {
            if let transaction { return try transaction.savepoint(body) }
            return try connection.savepoint(body)
        } catch {
            undoable = saved
            throw error
        }
    }

    /// The write transaction, or a failure when a read asks to write.
    var writing: PostgresWriteTransaction {
        get throws {
            guard let transaction else { throw CloudStoreError.internalError("A write was asked of a read transaction") }
            return transaction
        }
    }

    // MARK: - Zones

    /// The database a zone row's scope and owner name.
    static func database(scope: Int64, owner: String) -> DatabaseID {
        let scope = StoredCodes.scope(ofCode: scope)
        return scope == .public ? .public : DatabaseID(scope: scope, owner: owner)
    }

    func zone(named name: String, in database: DatabaseID) throws -> StoredZone? {
        // In a write, the zone's row is share-locked for the rest of the transaction: a zone
        // deleted by another process waits for this write, or this write finds it gone.
        let lock = transaction == nil ? "" : " FOR KEY SHARE"
        return try connection.execute(
            "SELECT zone, created FROM \(table("zones")) WHERE scope = $1 AND owner = $2 AND name = $3\(lock)",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(name)]
        ).first { row in
            StoredZone(
                key: row.integer(0), zoneID: ZoneID(zoneName: name, ownerRecordName: database.owner), database: database,
                created: row.integer(1))
        }
    }

    func zones(in database: DatabaseID) throws -> [StoredZone] {
        try connection.execute(
            "SELECT zone, name, created FROM \(table("zones")) WHERE scope = $1 AND owner = $2 ORDER BY name COLLATE \"C\"",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]
        ).map { row in
            StoredZone(
                key: row.integer(0), zoneID: ZoneID(zoneName: row.text(1), ownerRecordName: database.owner), database: database,
                created: row.integer(2))
        }
    }

    func createZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone {
        let writing = try writing
        let scope = StoredCodes.scopeCode(database.scope)
        // Another process may have made it since this write looked: then it is that zone.
        let key = try connection.execute(
            """
            INSERT INTO \(table("zones"))(scope, owner, name, created) VALUES ($1, $2, $3, $4)
            ON CONFLICT (scope, owner, name) DO NOTHING RETURNING zone
            """,
            [.integer(scope), .text(database.owner), .text(name), .integer(created)]
        ).scalarInteger()
        guard let key else {
            guard let existing = try zone(named: name, in: database) else {
                throw CloudStoreError.tryAgainLater("The zone changed meanwhile; try again")
            }
            return existing
        }
        writing.touchZoneLog(.init(scope: scope, owner: database.owner, name: name), deleted: false, time: created)
        return StoredZone(key: key, zoneID: ZoneID(zoneName: name, ownerRecordName: database.owner), database: database, created: created)
    }

    func deleteZone(_ zone: StoredZone, at time: Int64) throws {
        let writing = try writing
        writing.touchZoneLog(
            .init(scope: StoredCodes.scopeCode(zone.database.scope), owner: zone.database.owner, name: zone.zoneID.zoneName), deleted: true,
            time: time)
        writing.pending.forget(zone: zone.key)
        let key = PostgresValue.integer(zone.key)
        try deleteProjections(ofZone: zone.key)
        for name in [
            "refs WHERE target_zone = $1", "records WHERE zone = $1", "changes WHERE zone = $1", "shares WHERE zone = $1",
            "share_participants WHERE zone = $1", "zone_stats WHERE zone = $1", "type_stats WHERE zone = $1", "zones WHERE zone = $1",
        ] {
            try connection.execute("DELETE FROM \(namespace).\(name)", [key])
        }
        try connection.execute(
            "UPDATE \(table("meta")) SET value = (value::bigint + 1)::text WHERE key = 'zones_generation'")
        statsDeltas = statsDeltas.filter { $0.key.zone != zone.key }
    }

    /// Deletes what records of a zone keep beside their rows: list elements, search words,
    /// references and asset references.
    func deleteProjections(ofZone zone: Int64) throws {
        for type in catalog.types.values {
            for field in type.listFields {
                try connection.execute(
                    "DELETE FROM \(namespace).\(PostgresProjections.listTable(type, field)) WHERE zone = $1", [.integer(zone)])
            }
            if !type.searchableFields.isEmpty {
                try connection.execute(
                    "DELETE FROM \(namespace).\(PostgresProjections.searchTable(type)) WHERE rid IN (SELECT rid FROM \(table("records")) WHERE zone = $1 AND type = $2)",
                    [.integer(zone), .integer(type.id)])
            }
        }
        try connection.execute(
            "DELETE FROM \(table("refs")) WHERE source IN (SELECT rid FROM \(table("records")) WHERE zone = $1)", [.integer(zone)])
        try connection.execute(
            "DELETE FROM \(table("asset_refs")) WHERE rid IN (SELECT rid FROM \(table("records")) WHERE zone = $1)", [.integer(zone)])
    }

    // MARK: - Change logs

    /// The write transaction's change log, or for a read one numbered as the store's writes are.
    let changeLog: PostgresChangeLog

    func lastChangeSequence(in zone: StoredZone) throws -> Int64 {
        try changeLog.lastSequence(zone: zone.key, on: connection)
    }

    func changes(in zone: StoredZone, after sequence: Int64, limit: Int) throws -> [ChangeEntry] {
        try changes(in: zone, matching: ChangeLogFilter(after: sequence), limit: limit)
    }

    func changes(in zone: StoredZone, matching filter: ChangeLogFilter, limit: Int) throws -> [ChangeEntry] {
        try changeLog.changes(zone: zone.key, matching: filter, limit: limit, on: connection).map(changeEntry)
    }

    /// A stored change as the domain sees it.
    private func changeEntry(_ stored: PostgresChangeLog.StoredEntry) -> ChangeEntry {
        ChangeEntry(
            sequence: stored.sequence, recordName: stored.entry.recordName, recordType: catalog.typeNames[stored.entry.typeID] ?? "",
            kind: stored.entry.kind, creator: stored.entry.creator, time: stored.entry.time, tree: stored.entry.tree,
            modifier: stored.entry.modifier, via: stored.entry.via)
    }

    func changesWithRecords(in zone: StoredZone, after sequence: Int64, through: Int64?, limit: Int) throws
        -> [(entry: ChangeEntry, current: StoredRecord?, superseded: Bool)]
    {
        // `changes_by_name` finds a later entry of the same record in one probe: compared in its
        // collation ("C", byte order), which equality of names does not depend on.
        var sql = """
            SELECT c.seq, c.name, c.type, c.kind, c.creator, c.time, c.tree,
                EXISTS (
                    SELECT 1 FROM \(table("changes")) l WHERE l.zone = c.zone AND l.name = c.name COLLATE "C" AND l.seq > c.seq
                ),
                \(RecordColumns.selected)
            FROM \(table("changes")) c LEFT JOIN \(table("records")) r ON r.zone = c.zone AND r.name = c.name
            WHERE c.zone = $1 AND c.seq > $2
            """
        var values: [PostgresValue] = [.integer(zone.key), .integer(sequence)]
        if let through {
            sql += " AND c.seq <= $3 ORDER BY c.seq DESC LIMIT $4"
            values += [.integer(through), .integer(limit)]
        } else {
            sql += " ORDER BY c.seq LIMIT $3"
            values.append(.integer(limit))
        }
        return try connection.execute(sql, values).map { row in
            guard let kind = ChangeEntry.Kind(rawValue: row.integer(3)) else {
                throw CloudStoreError.internalError("A change log entry has an unknown kind \(row.integer(3))")
            }
            let entry = ChangeEntry(
                sequence: row.integer(0), recordName: row.text(1), recordType: catalog.typeNames[row.integer(2)] ?? "", kind: kind,
                creator: row.text(4), time: row.integer(5), tree: row.optionalText(6))
            let current =
                row.isNull(8) ? nil : try PostgresRecordQuery.storedRecord(from: row, offset: 8, catalog: catalog, zoneID: zone.zoneID)
            return (entry, current, row.bool(7))
        }
    }

    func appendChange(_ entry: ChangeEntry, in zone: StoredZone) throws {
        let writing = try writing
        try writing.appendChange(
            PostgresChangeLog.Entry(
                recordName: entry.recordName, typeID: try catalog.recordType(entry.recordType).id, kind: entry.kind, creator: entry.creator,
                time: entry.time, tree: entry.tree, modifier: entry.modifier, via: entry.via),
            zone: zone.key)
        writing.touchZoneLog(
            .init(scope: StoredCodes.scopeCode(zone.database.scope), owner: zone.database.owner, name: zone.zoneID.zoneName),
            deleted: false, time: entry.time)
    }

    /// The statements this write's counts need, in the lock order the type's comment gives:
    /// run last, before the change log's.
    func finalStatements() -> [(sql: String, values: [PostgresValue])] {
        var statements: [(sql: String, values: [PostgresValue])] = []
        let changed = statsDeltas.filter { $0.value.records != 0 || $0.value.bytes != 0 }
        let types = changed.filter { $0.value.records != 0 }.keys.sorted()
        if !types.isEmpty {
            statements.append(
                (
                    """
                    INSERT INTO \(table("type_stats"))(type, zone, records) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
                    ON CONFLICT (type, zone) DO UPDATE SET records = type_stats.records + excluded.records
                    """,
                    [.integerArray(types.map(\.type)), .integerArray(types.map(\.zone)), .integerArray(types.map { changed[$0]!.records })]
                ))
        }
        var byZone: [Int64: (records: Int64, bytes: Int64)] = [:]
        for (key, delta) in changed {
            byZone[key.zone, default: (0, 0)].records += delta.records
            byZone[key.zone, default: (0, 0)].bytes += delta.bytes
        }
        let zones = byZone.keys.sorted()
        if !zones.isEmpty {
            statements.append(
                (
                    """
                    INSERT INTO \(table("zone_stats"))(zone, records, bytes) SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::bigint[])
                    ON CONFLICT (zone) DO UPDATE SET records = zone_stats.records + excluded.records, bytes = zone_stats.bytes + excluded.bytes
                    """,
                    [
                        .integerArray(zones), .integerArray(zones.map { byZone[$0]!.records }),
                        .integerArray(zones.map { byZone[$0]!.bytes }),
                    ]
                ))
        }
        return statements
    }
}

/// A write group's jobs share one session: each job's counts wait in it and are written once,
/// by the group's last statements.
extension PostgresEnvironmentSession: PostgresWriteGroupState {
    func beginJob() { beforeJob = undoable }

    func undoJob() {
        if let beforeJob { undoable = beforeJob }
    }
}
