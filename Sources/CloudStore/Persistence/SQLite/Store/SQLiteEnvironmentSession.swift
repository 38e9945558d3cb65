/// Reads and writes one environment file within one transaction, for the domain.
/// Lives only as long as the transaction it was made for.
final class SQLiteEnvironmentSession: EnvironmentWriter {
    let connection: SQLiteConnection
    /// The schema as this transaction sees it; replaced when the transaction changes the schema.
    var catalog: SchemaCatalog
    /// Records and bytes gained or lost per zone and type, written once by ``flushStats()``.
    var statsDeltas: [StatsKey: (records: Int64, bytes: Int64)] = [:]
    /// Zones this transaction created, changed or deleted, for the database log; written once
    /// each by ``flushZoneLog()``.
    var zoneLogTouches: [(key: ZoneLogKey, touch: ZoneLogTouch)] = []

    /// On the writer connection, its memory of zones, last sequences and subscriptions (see
    /// ``SQLiteWriterMemo``); `nil` in a read transaction.
    private let writerMemo: SQLiteWriterMemo?
    /// The zones this write found or made, and the last sequences it read or moved: for the
    /// writer's memory once the transaction has committed.
    private var foundZones: [SQLiteZoneCache.Key: StoredZone] = [:]
    private var foundSequences: [Int64: Int64] = [:]
    /// Whether this write deleted or changed zones, or their changes' horizon: it then neither
    /// uses the writer's memory nor adds to it, and empties it when it commits.
    private var zonesRewritten = false
    /// The subscriptions this write read, by database, for the writer's memory; and whether it
    /// saved or deleted any, after which it reads them from the file alone and the memory
    /// forgets them when it commits. Not taken back with a rolled-back job: a read stays true
    /// of what was committed, and a write only makes the memory forget more.
    private var foundSubscriptions: [DatabaseID: [(user: String, subscription: Subscription)]] = [:]
    private var subscriptionsRewritten = false
    /// The writer's memory while this write may use it and add to it.
    private var memoInUse: SQLiteWriterMemo? { zonesRewritten ? nil : writerMemo }
    /// The writer's memory while this write may use its subscriptions and add to them.
    private var subscriptionMemoInUse: SQLiteWriterMemo? { subscriptionsRewritten ? nil : memoInUse }

    /// What a rolled-back savepoint or group job must take back besides the rows: the catalog
    /// (a schema change), the counts and zone log touches not written yet, and what it found or
    /// made for the writer's memory.
    private typealias Undoable = (
        catalog: SchemaCatalog, statsDeltas: [StatsKey: (records: Int64, bytes: Int64)],
        zoneLogTouches: [(key: ZoneLogKey, touch: ZoneLogTouch)],
        foundZones: [SQLiteZoneCache.Key: StoredZone], foundSequences: [Int64: Int64]
    )
    private var undoable: Undoable {
        get { (catalog, statsDeltas, zoneLogTouches, foundZones, foundSequences) }
        set { (catalog, statsDeltas, zoneLogTouches, foundZones, foundSequences) = newValue }
    }
    /// ``undoable`` before the current job of a write group (see ``SQLiteWriteGroupState``).
    private var beforeJob: Undoable?

    /// The user and device of the last stamp read: a record's creator is mostly its modifier, and
    /// a page's records mostly one user's, so their texts are made once. Not checked for
    /// overlapping access at run time: a session is used by one thread, and only
    /// ``storedRecord(from:offset:zoneID:)`` touches it.
    @exclusivity(unchecked) private var recentStamp = (user: "", device: "")

    /// Where a read transaction keeps the zones it finds, with the zones generation its snapshot
    /// sees; `nil` in a write transaction (see ``SQLiteZoneCache``).
    let zoneCache: (cache: SQLiteZoneCache, generation: Int64)?

    /// A session for a read transaction, or with `writerMemo` for a write on the writer
    /// connection: that memory must have been checked against the transaction's versions.
    init(
        connection: SQLiteConnection, catalog: SchemaCatalog, zoneCache: (cache: SQLiteZoneCache, generation: Int64)? = nil,
        writerMemo: SQLiteWriterMemo? = nil
    ) {
        self.connection = connection
        self.catalog = catalog
        self.zoneCache = zoneCache
        self.writerMemo = writerMemo
        if writerMemo != nil { connection.transactionMemory = self }
    }

    /// The stored schema version.
    static func schemaVersion(on connection: SQLiteConnection) throws -> Int64 {
        try versions(on: connection).schema
    }

    /// The stored schema version, and the zones generation that ``SQLiteZoneCache`` entries are good
    /// for: in one statement, as every transaction reads them.
    static func versions(on connection: SQLiteConnection) throws -> (schema: Int64, zones: Int64) {
        let versions = try connection.statement(Self.versionsSQL).firstRow { row in
            (row.isNull(0) ? nil : row.integer(0), row.integer(1))
        }
        guard let versions, let schema = versions.0 else {
            throw CloudStoreError.internalError("The environment file has no schema version")
        }
        return (schema, versions.1)
    }

    /// ``versions(on:)`` in a read transaction on a connection that only reads: the versions
    /// this connection saw last, while no other connection has committed since. `PRAGMA
    /// data_version` begins the transaction's snapshot and moves whenever another connection
    /// has committed anything; a connection's own commits do not move it, so a connection that
    /// writes must read the versions themselves.
    static func versions(readingOn connection: SQLiteConnection) throws -> (schema: Int64, zones: Int64) {
        let dataVersion = try connection.statement("PRAGMA data_version").scalarInteger() ?? -1
        if let seen = connection.versionsSeen, seen.dataVersion == dataVersion { return (seen.schema, seen.zones) }
        let versions = try versions(on: connection)
        connection.versionsSeen = (dataVersion, versions.schema, versions.zones)
        return versions
    }

    private static let versionsSQL = """
        SELECT CAST(value AS INTEGER), (SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'zones_generation')
        FROM meta WHERE key = 'schema_version'
        """

    /// ``versions(on:)`` in a write transaction, with the connection's `PRAGMA data_version`,
    /// which tells whether another connection has committed since (see ``SQLiteWriterMemo``).
    static func versions(writingOn connection: SQLiteConnection) throws -> (schema: Int64, zones: Int64, data: Int64) {
        // Its own statement: as `pragma_data_version` in the versions' statement it cost three
        // times as much.
        let dataVersion = try connection.statement("PRAGMA data_version").scalarInteger() ?? -1
        let versions = try versions(on: connection)
        return (versions.schema, versions.zones, dataVersion)
    }

    func schema() throws -> Schema { catalog.schema }

    func incarnation() throws -> String {
        try connection.statement("SELECT value FROM meta WHERE key = 'incarnation'").firstRow { $0.text(0) } ?? ""
    }

    func savepoint<T>(_ body: () throws -> T) throws -> T {
        // Schema changes and counts made inside the savepoint are undone with it, so the catalog
        // and the pending counts must be too.
        let saved = undoable
        do {
            return try connection.savepoint(body)
        } catch {
            undoable = saved
            throw error
        }
    }

    // MARK: - Zones

    func zone(named name: String, in database: DatabaseID) throws -> StoredZone? {
        let scope = StoredCodes.scopeCode(database.scope)
        if let writerMemo = memoInUse {
            let key = SQLiteZoneCache.Key(scope: scope, owner: database.owner, name: name)
            if let known = foundZones[key] ?? writerMemo.zones[key] { return known }
            let zone = try storedZone(named: name, scope: scope, in: database)
            if let zone { foundZones[key] = zone }
            return zone
        }
        let key = zoneCache.map { _ in SQLiteZoneCache.Key(scope: scope, owner: database.owner, name: name) }
        if let zoneCache, let key, let cached = zoneCache.cache.zone(key, generation: zoneCache.generation) { return cached }
        let zone = try storedZone(named: name, scope: scope, in: database)
        if let zoneCache, let key, let zone { zoneCache.cache.remember(zone, key, generation: zoneCache.generation) }
        return zone
    }

    private func storedZone(named name: String, scope: Int64, in database: DatabaseID) throws -> StoredZone? {
        try connection.statement("SELECT zone, created FROM zones WHERE scope = ? AND owner = ? AND name = ?")
            .firstRow([.integer(scope), .text(database.owner), .text(name)]) { row in
                StoredZone(
                    key: row.integer(0), zoneID: ZoneID(zoneName: name, ownerRecordName: database.owner),
                    database: database, created: row.integer(1))
            }
    }

    func zones(in database: DatabaseID) throws -> [StoredZone] {
        try connection.statement("SELECT zone, name, created FROM zones WHERE scope = ? AND owner = ? ORDER BY name")
            .rows([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]) { row in
                StoredZone(
                    key: row.integer(0), zoneID: ZoneID(zoneName: row.text(1), ownerRecordName: database.owner),
                    database: database, created: row.integer(2))
            }
    }

    func createZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone {
        try insertZone(named: name, in: database, created: created)
    }

    func restoreZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone {
        try insertZone(named: name, in: database, created: created)
    }

    /// Makes a zone with a key no zone ever had: past every zone's, every trashed zone's and the
    /// largest ever given (kept in `meta`). A key given again would let a token of a deleted zone
    /// read the log of a zone made later, silently, where it must be refused; zones are made
    /// rarely, so the two statements cost nothing that matters.
    private func insertZone(named name: String, in database: DatabaseID, created: Int64) throws -> StoredZone {
        try connection.statement(
            """
            INSERT INTO zones(zone, scope, owner, name, created)
            VALUES (max((SELECT coalesce(max(zone), 0) FROM zones), (SELECT coalesce(max(zone_key), 0) FROM zone_trash),
                        (SELECT coalesce(max(CAST(value AS INTEGER)), 0) FROM meta WHERE key = 'largest_zone_key')) + 1, ?, ?, ?, ?)
            """
        ).execute([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(name), .integer(created)])
        let key = connection.lastInsertRowID
        try connection.statement(
            "INSERT INTO meta(key, value) VALUES ('largest_zone_key', ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value"
        ).execute([.text(String(key))])
        let zone = StoredZone(
            key: key, zoneID: ZoneID(zoneName: name, ownerRecordName: database.owner),
            database: database, created: created)
        touchZoneLog(zone, deleted: false, time: created)
        if writerMemo != nil {
            foundZones[SQLiteZoneCache.Key(scope: StoredCodes.scopeCode(database.scope), owner: database.owner, name: name)] = zone
        }
        return zone
    }

    func deleteZone(_ zone: StoredZone, at time: Int64) throws {
        rewritesZones()
        touchZoneLog(zone, deleted: true, time: time)
        let key = SQLiteValue.integer(zone.key)
        for type in catalog.types.values {
            for field in type.listFields {
                try connection.statement("DELETE FROM \(type.listTable) WHERE field = ? AND zone = ?")
                    .execute([.integer(field.id), key])
            }
            if !type.searchableFields.isEmpty {
                try connection.statement(
                    "DELETE FROM \(type.searchTable) WHERE rowid IN (SELECT rid FROM records WHERE zone = ? AND type = ?)"
                ).execute([key, .integer(type.id)])
            }
        }
        try connection.statement("DELETE FROM refs WHERE source IN (SELECT rid FROM records WHERE zone = ?)").execute([key])
        try connection.statement("DELETE FROM asset_refs WHERE rid IN (SELECT rid FROM records WHERE zone = ?)").execute([key])
        try connection.statement("DELETE FROM refs WHERE target_zone = ?").execute([key])
        try connection.statement("DELETE FROM records WHERE zone = ?").execute([key])
        try connection.statement("DELETE FROM changes WHERE zone = ?").execute([key])
        try connection.statement("DELETE FROM shares WHERE zone = ?").execute([key])
        try connection.statement("DELETE FROM share_participants WHERE zone = ?").execute([key])
        try connection.statement("DELETE FROM zones WHERE zone = ?").execute([key])
        try connection.statement("DELETE FROM zone_stats WHERE zone = ?").execute([key])
        try connection.statement("DELETE FROM type_stats WHERE zone = ?").execute([key])
        statsDeltas = statsDeltas.filter { $0.key.zone != zone.key }
    }

    // MARK: - Reading records

    /// A zone's record by name; built once, as every lookup and save asks for it.
    private static let recordNamedSQL = "SELECT \(RecordColumns.selected) FROM records r WHERE r.zone = ? AND r.name = ?"

    /// Builds a stored record from ``RecordColumns/selected`` starting at column `offset`.
    func storedRecord(from row: SQLiteRow, offset: Int32 = 0, zoneID: ZoneID) throws -> StoredRecord {
        let record = Record(
            recordName: row.text(offset + 1), recordType: try catalog.typeName(row.integer(offset + 2)), zoneID: zoneID,
            fields: try RecordPayloadCodec.decode(row.blob(offset + 12)), parent: row.optionalText(offset + 4),
            changeTag: row.text(offset + 3),
            created: RecordStamp(
                timestamp: row.integer(offset + 5), userRecordName: row.text(offset + 6, sameAs: &recentStamp.user),
                deviceID: row.text(offset + 7, sameAs: &recentStamp.device)),
            modified: RecordStamp(
                timestamp: row.integer(offset + 8), userRecordName: row.text(offset + 9, sameAs: &recentStamp.user),
                deviceID: row.text(offset + 10, sameAs: &recentStamp.device)))
        return StoredRecord(key: row.integer(offset), record: record, size: Int(row.integer(offset + 11)))
    }

    /// One writer holds the whole file: nothing can wait on another writer's rows.
    func lockRecords(named names: [String], in zone: StoredZone) throws {}

    func record(named name: String, in zone: StoredZone) throws -> StoredRecord? {
        try connection.statement(Self.recordNamedSQL)
            .firstRow([.integer(zone.key), .text(name)]) { try storedRecord(from: $0, zoneID: zone.zoneID) }
    }

    func records(in zone: StoredZone, ofType recordType: String?, withinTrees roots: [String]?, after name: String?, limit: Int) throws
        -> [StoredRecord]
    {
        var sql = "SELECT \(RecordColumns.selected) FROM records r WHERE r.zone = ?"
        var values: [SQLiteValue] = [.integer(zone.key)]
        if let roots {
            let (condition, parameters) = SQLiteQuerySQLBuilder.withinTrees(roots, zone: zone.key)
            sql += " AND " + condition
            values += parameters
        }
        if let recordType {
            // A type the catalog does not know has no records.
            guard let type = catalog.types[recordType] else { return [] }
            sql += " AND r.type = ?"
            values.append(.integer(type.id))
        }
        if let name {
            sql += " AND r.name > ?"
            values.append(.text(name))
        }
        values.append(.integer(Int64(limit)))
        return try connection.statement(sql + " ORDER BY r.name LIMIT ?").rows(values) { try storedRecord(from: $0, zoneID: zone.zoneID) }
    }

    func referrers(to recordName: String, in zone: StoredZone, action: Reference.Action) throws -> [String] {
        try connection.statement(
            """
            SELECT r.name FROM refs JOIN records r ON r.rid = refs.source
            WHERE refs.target_zone = ? AND refs.target = ? AND refs.action = ? ORDER BY r.rid
            """
        ).rows([.integer(zone.key), .text(recordName), .integer(StoredCodes.actionCode(action))]) { $0.text(0) }
    }

    // MARK: - Change log

    func lastChangeSequence(in zone: StoredZone) throws -> Int64 {
        if let known = knownLastSequence(in: zone) { return known }
        // Forgotten tombstones leave the horizon behind, so that sequences are never given twice.
        let last =
            try connection.statement(
                "SELECT max(coalesce((SELECT max(seq) FROM changes WHERE zone = ?1), 0), horizon) FROM zones WHERE zone = ?1"
            )
            .scalarInteger([.integer(zone.key)]) ?? 0
        if memoInUse != nil { foundSequences[zone.key] = last }
        return last
    }

    /// `zone`'s last change sequence as this write or the writer's memory knows it, when this
    /// write may use that memory.
    private func knownLastSequence(in zone: StoredZone) -> Int64? {
        guard let writerMemo = memoInUse else { return nil }
        return foundSequences[zone.key] ?? writerMemo.lastSequences[zone.key]
    }

    func changes(in zone: StoredZone, after sequence: Int64, limit: Int) throws -> [ChangeEntry] {
        try changes(in: zone, matching: ChangeLogFilter(after: sequence), limit: limit)
    }

    func changes(in zone: StoredZone, matching filter: ChangeLogFilter, limit: Int) throws -> [ChangeEntry] {
        var sql = "SELECT seq, name, type, kind, creator, time, modified_by, modified_via FROM changes"
        sql += filter.byName ? " INDEXED BY changes_by_name WHERE zone = ? AND seq > ?" : " WHERE zone = ? AND seq > ?"
        var parameters: [SQLiteValue] = [.integer(zone.key), .integer(filter.after)]
        if let before = filter.before {
            sql += " AND seq < ?"
            parameters.append(.integer(before))
        }
        if let prefix = filter.namePrefix {
            // By name, the range lets the name index find the names (by position, there is no
            // range, so that the log is read by position); substr (characters, as the prefix
            // counts them) keeps exactly those that start with the prefix.
            if filter.byName {
                sql += " AND name >= ?"
                parameters.append(.text(prefix))
                if let upper = filter.nameUpperBound {
                    sql += " AND name < ?"
                    parameters.append(.text(upper))
                }
            }
            sql += " AND substr(name, 1, ?) = ?"
            parameters += [.integer(Int64(prefix.count)), .text(prefix)]
        }
        if let since = filter.since {
            sql += " AND time >= ?"
            parameters.append(.integer(since))
        }
        if filter.ordered { sql += filter.newestFirst ? " ORDER BY seq DESC" : " ORDER BY seq" }
        sql += " LIMIT ?"
        parameters.append(.integer(Int64(limit)))
        return try connection.statement(sql).rows(parameters) { row in
            guard let kind = ChangeEntry.Kind(rawValue: row.integer(3)) else {
                throw CloudStoreError.internalError("A change log entry has an unknown kind \(row.integer(3))")
            }
            return ChangeEntry(
                sequence: row.integer(0), recordName: row.text(1), recordType: catalog.typeNames[row.integer(2)] ?? "", kind: kind,
                creator: row.text(4), time: row.integer(5), modifier: row.optionalText(6), via: row.optionalText(7))
        }
    }

    func changesWithRecords(in zone: StoredZone, after sequence: Int64, through: Int64?, limit: Int) throws
        -> [(entry: ChangeEntry, current: StoredRecord?, superseded: Bool)]
    {
        // `changes_by_name` finds a later entry of the same record in one probe.
        let columns =
            "SELECT c.seq, c.name, c.type, c.kind, c.creator, c.time, c.tree, "
            + "EXISTS (SELECT 1 FROM changes l WHERE l.zone = c.zone AND l.name = c.name AND l.seq > c.seq), "
            + "\(RecordColumns.selected) FROM changes c "
            + "LEFT JOIN records r ON r.zone = c.zone AND r.name = c.name WHERE c.zone = ? AND c.seq > ? "
        let statement =
            try through == nil
            ? connection.statement(columns + "ORDER BY c.seq LIMIT ?")
            : connection.statement(columns + "AND c.seq <= ? ORDER BY c.seq DESC LIMIT ?")
        var parameters: [SQLiteValue] = [.integer(zone.key), .integer(sequence)]
        if let through { parameters.append(.integer(through)) }
        parameters.append(.integer(Int64(limit)))
        return try statement.rows(parameters) { row in
            guard let kind = ChangeEntry.Kind(rawValue: row.integer(3)) else {
                throw CloudStoreError.internalError("A change log entry has an unknown kind \(row.integer(3))")
            }
            let entry = ChangeEntry(
                sequence: row.integer(0), recordName: row.text(1), recordType: catalog.typeNames[row.integer(2)] ?? "", kind: kind,
                creator: row.text(4), time: row.integer(5), tree: row.optionalText(6))
            // The record's key is NULL when the join found none.
            let current = row.isNull(8) ? nil : try storedRecord(from: row, offset: 8, zoneID: zone.zoneID)
            return (entry, current, row.integer(7) != 0)
        }
    }

    func appendChange(_ entry: ChangeEntry, in zone: StoredZone) throws {
        let type = try catalog.recordType(entry.recordType)
        // The one writer numbers the entries as it appends them: commit order is sequence order.
        let sequence = try lastChangeSequence(in: zone) + 1
        try connection.statement(
            "INSERT INTO changes(zone, seq, name, type, kind, creator, time, tree, modified_by, modified_via) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
        )
        .execute([
            .integer(zone.key), .integer(sequence), .text(entry.recordName), .integer(type.id),
            .integer(entry.kind.rawValue), .text(entry.creator), .integer(entry.time), .text(entry.tree), .text(entry.modifier),
            .text(entry.via),
        ])
        touchZoneLog(zone, deleted: false, time: entry.time)
        if memoInUse != nil { foundSequences[zone.key] = sequence }
    }
}

/// On the writer, what the transaction found and made goes to the writer's memory once it has
/// committed.
extension SQLiteEnvironmentSession: SQLiteTransactionMemory {
    func committed() {
        guard let writerMemo else { return }
        if zonesRewritten {
            writerMemo.forget()
            return
        }
        if subscriptionsRewritten { writerMemo.forgetSubscriptions() }
        writerMemo.keep(zones: foundZones, lastSequences: foundSequences, subscriptions: foundSubscriptions)
    }

    /// The subscriptions of `database` the writer's memory holds, or those this write read.
    func knownSubscriptions(in database: DatabaseID) -> [(user: String, subscription: Subscription)]? {
        guard let writerMemo = subscriptionMemoInUse else { return nil }
        return foundSubscriptions[database] ?? writerMemo.subscriptions[database]
    }

    /// Keeps the subscriptions of `database` as read by this write, for the writer's memory.
    func found(_ subscriptions: [(user: String, subscription: Subscription)], in database: DatabaseID) {
        if subscriptionMemoInUse != nil { foundSubscriptions[database] = subscriptions }
    }

    /// This write saves or deletes subscriptions: it reads them from the file from now on, and
    /// the writer's memory forgets them when it commits.
    func rewritesSubscriptions() {
        subscriptionsRewritten = true
        // What it read before may be what it now changes.
        foundSubscriptions.removeAll()
    }

    /// This write deletes or changes zones or their changes' horizon: the writer's memory is no
    /// longer used by it, and is emptied when it commits.
    func rewritesZones() { zonesRewritten = true }
}

/// A write group's jobs share one session: each job's counts and zone log touches wait in it,
/// and are written once, before the group commits.
extension SQLiteEnvironmentSession: SQLiteWriteGroupState {
    func beginJob() { beforeJob = undoable }

    func undoJob() {
        if let beforeJob { undoable = beforeJob }
    }

    func finish() throws {
        try flushStats()
        try flushZoneLog()
    }
}
