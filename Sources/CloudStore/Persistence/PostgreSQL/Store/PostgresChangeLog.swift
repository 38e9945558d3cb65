import Foundation

/// An environment's change logs on PostgreSQL: each zone's log of record changes and each
/// database's log of zones.
///
/// A write transaction keeps what it appends in memory (``Pending``). Its last statements take
/// each touched zone's next sequences from the zone's counter row (`zones.last_seq`), in
/// ascending zone order, then each database's from its counter row, inserting the entries with
/// them; `COMMIT` goes in the same round trip (``commitStatements(_:)``). A second transaction
/// on the same zone waits on that row until the first has committed, then reads the counter the
/// first left: so sequences are dense, commit order is sequence order, and a reader asking for
/// "after n" can never miss a commit. Zones never wait on each other, and no reader waits.
struct PostgresChangeLog: Sendable {
    /// How sequences are taken.
    enum Numbering: Sendable {
        /// From the zone's counter row, as the transaction's last statements: never skips.
        case counterRow
        #if CUMULUS_NEGATIVE_CONTROLS
            /// From a sequence, as each entry is appended, with no lock: the scheme that loses
            /// commits to readers. Only for the tests that show the checker catches it (debug builds
            /// alone have it); the transaction goes on for `hold` microseconds after each, as a
            /// write with more to do would: the window in which a reader passes its sequence by.
            case naiveSequence(hold: UInt32)
        #endif
    }

    /// The environment's schema, quoted.
    let schema: String
    let numbering: Numbering

    init(schema: String, numbering: Numbering = .counterRow) {
        self.schema = schema
        self.numbering = numbering
    }

    /// One change as a transaction appends it, before it has a sequence.
    struct Entry: Hashable, Sendable {
        var recordName: String
        var typeID: Int64
        var kind: ChangeEntry.Kind
        var creator: String
        var time: Int64
        var tree: String?
        var modifier: String? = nil
        var via: String? = nil
    }

    /// A change as stored, with its sequence.
    struct StoredEntry: Hashable, Sendable {
        var sequence: Int64
        var entry: Entry
    }

    /// A zone of a database by name: what a zone log row stands for.
    struct ZoneLogKey: Hashable, Comparable, Sendable {
        var scope: Int64
        var owner: String
        var name: String

        static func < (a: Self, b: Self) -> Bool { (a.scope, a.owner, a.name) < (b.scope, b.owner, b.name) }
    }

    /// What a write transaction has appended and not yet numbered: a value, so that a rolled-back
    /// savepoint restores it by assignment.
    struct Pending: Sendable {
        /// Entries by zone key, in the order appended.
        var entries: [Int64: [Entry]] = [:]
        /// Zones created, changed or deleted, with whether they were deleted and when, in the
        /// order last touched: the zone log orders a database's zones by their latest change.
        var zoneLog: [(key: ZoneLogKey, deleted: Bool, time: Int64)] = []

        var isEmpty: Bool { entries.isEmpty && zoneLog.isEmpty }

        /// Notes that a zone was created, changed or deleted.
        mutating func touch(_ key: ZoneLogKey, deleted: Bool, time: Int64) {
            zoneLog.removeAll { $0.key == key }
            zoneLog.append((key, deleted, time))
        }

        /// Forgets a zone's entries: the zone was deleted in the same transaction.
        mutating func forget(zone: Int64) { entries[zone] = nil }
    }

    // MARK: - Writing

    /// Appends `entry` to `zone`'s log in `pending`; in the naive numbering, inserts it at once.
    func append(_ entry: Entry, zone: Int64, to pending: inout Pending, on connection: PostgresConnection) throws {
        switch numbering {
        case .counterRow:
            pending.entries[zone, default: []].append(entry)
        #if CUMULUS_NEGATIVE_CONTROLS
            case .naiveSequence(let hold):
                try connection.execute(
                    "INSERT INTO \(schema).changes(zone, seq, name, type, kind, creator, time, tree, modified_by, modified_via) VALUES ($1, nextval('\(schema).naive_seq'), $2, $3, $4, $5, $6, $7, $8, $9)",
                    [
                        .integer(zone), .text(entry.recordName), .integer(entry.typeID), .integer(entry.kind.rawValue),
                        .text(entry.creator),
                        .integer(entry.time), .text(entry.tree), .text(entry.modifier), .text(entry.via),
                    ])
                if hold > 0 { usleep(hold) }
        #endif
        }
    }

    /// The statements that number and insert `pending`, followed by `COMMIT`: to be sent in
    /// one pipeline. Zones in ascending key order, then databases in ascending order, so that
    /// two transactions touching the same zones never wait on each other in a cycle.
    func commitStatements(_ pending: Pending) -> [(sql: String, values: [PostgresValue])] {
        var statements: [(sql: String, values: [PostgresValue])] = []
        for zone in pending.entries.keys.sorted() {
            let entries = pending.entries[zone]!
            guard !entries.isEmpty else { continue }
            statements.append(
                (
                    appendChangesSQL,
                    [
                        .integer(zone), .integer(entries.count),
                        .textArray(entries.map(\.recordName)), .integerArray(entries.map(\.typeID)),
                        .integerArray(entries.map(\.kind.rawValue)), .textArray(entries.map(\.creator)),
                        .integerArray(entries.map(\.time)), .textArray(entries.map(\.tree)),
                        .textArray(entries.map(\.modifier)), .textArray(entries.map(\.via)),
                    ]
                ))
        }
        let databases = Dictionary(grouping: pending.zoneLog, by: { DatabaseKey(scope: $0.key.scope, owner: $0.key.owner) })
        for database in databases.keys.sorted() {
            let touches = databases[database]!
            statements.append(
                (
                    appendZoneLogSQL,
                    [
                        .integer(database.scope), .text(database.owner), .integer(touches.count),
                        .textArray(touches.map(\.key.name)), .integerArray(touches.map { $0.deleted ? 1 : 0 }),
                        .integerArray(touches.map(\.time)),
                    ]
                ))
        }
        statements.append(("COMMIT", []))
        return statements
    }

    private struct DatabaseKey: Hashable, Comparable {
        var scope: Int64
        var owner: String
        static func < (a: Self, b: Self) -> Bool { (a.scope, a.owner) < (b.scope, b.owner) }
    }

    /// Moves the zone's counter by the number of entries and inserts them under the sequences it
    /// passed over: the statement that takes the zone's lock, last in the transaction.
    private var appendChangesSQL: String {
        """
        WITH c AS (UPDATE \(schema).zones SET last_seq = last_seq + $2 WHERE zone = $1 RETURNING last_seq)
        INSERT INTO \(schema).changes(zone, seq, name, type, kind, creator, time, tree, modified_by, modified_via)
        SELECT $1, c.last_seq - $2 + o.ord, o.name, o.type, o.kind, o.creator, o.time, o.tree, o.modified_by, o.modified_via
        FROM c, unnest($3::text[], $4::bigint[], $5::bigint[], $6::text[], $7::bigint[], $8::text[], $9::text[], $10::text[])
            WITH ORDINALITY AS o(name, type, kind, creator, time, tree, modified_by, modified_via, ord)
        """
    }

    /// Moves the database's counter (made on first use) and moves each touched zone's row of its
    /// log to the sequences passed over.
    private var appendZoneLogSQL: String {
        """
        WITH c AS (
            INSERT INTO \(schema).database_counters(scope, owner, last_seq) VALUES ($1, $2, $3)
            ON CONFLICT (scope, owner) DO UPDATE SET last_seq = database_counters.last_seq + excluded.last_seq
            RETURNING last_seq
        )
        INSERT INTO \(schema).zone_log(scope, owner, name, seq, deleted, time)
        SELECT $1, $2, o.name, c.last_seq - $3 + o.ord, o.deleted <> 0, o.time
        FROM c, unnest($4::text[], $5::bigint[], $6::bigint[]) WITH ORDINALITY AS o(name, deleted, time, ord)
        ON CONFLICT (scope, owner, name) DO UPDATE SET seq = excluded.seq, deleted = excluded.deleted, time = excluded.time
        """
    }

    // MARK: - Reading

    /// The sequence of the zone's latest change: its counter, read in the caller's snapshot.
    func lastSequence(zone: Int64, on connection: PostgresConnection) throws -> Int64 {
        switch numbering {
        case .counterRow:
            try connection.execute("SELECT last_seq FROM \(schema).zones WHERE zone = $1", [.integer(zone)]).scalarInteger() ?? 0
        #if CUMULUS_NEGATIVE_CONTROLS
            case .naiveSequence:
                try connection.execute("SELECT coalesce(max(seq), 0) FROM \(schema).changes WHERE zone = $1", [.integer(zone)])
                    .scalarInteger() ?? 0
        #endif
        }
    }

    /// The zone's changes after `sequence`, oldest first.
    func changes(zone: Int64, after sequence: Int64, limit: Int, on connection: PostgresConnection) throws -> [StoredEntry] {
        try changes(zone: zone, matching: ChangeLogFilter(after: sequence), limit: limit, on: connection)
    }

    /// The zone's changes `filter` keeps, at most `limit`, in its order.
    func changes(zone: Int64, matching filter: ChangeLogFilter, limit: Int, on connection: PostgresConnection) throws -> [StoredEntry] {
        var sql =
            "SELECT seq, name, type, kind, creator, time, tree, modified_by, modified_via FROM \(schema).changes WHERE zone = $1 AND seq > $2"
        var values: [PostgresValue] = [.integer(zone), .integer(filter.after)]
        if let before = filter.before {
            values.append(.integer(before))
            sql += " AND seq < $\(values.count)"
        }
        if let prefix = filter.namePrefix {
            // By name, the range (in byte order, as the name index keeps names) lets the index
            // find the names (by position, there is no range, so that the log is read by
            // position); starts_with keeps exactly those that start with the prefix.
            values.append(.text(prefix))
            sql += " AND starts_with(name, $\(values.count))"
            if filter.byName {
                sql += " AND name COLLATE \"C\" >= $\(values.count)"
                if let upper = filter.nameUpperBound {
                    values.append(.text(upper))
                    sql += " AND name COLLATE \"C\" < $\(values.count)"
                }
            }
        }
        if let since = filter.since {
            values.append(.integer(since))
            sql += " AND time >= $\(values.count)"
        }
        values.append(.integer(Int64(limit)))
        if filter.ordered { sql += filter.newestFirst ? " ORDER BY seq DESC" : " ORDER BY seq" }
        sql += " LIMIT $\(values.count)"
        return try connection.execute(sql, values).map { row in
            guard let kind = ChangeEntry.Kind(rawValue: row.integer(3)) else {
                throw CloudStoreError.internalError("A change log entry has an unknown kind \(row.integer(3))")
            }
            return StoredEntry(
                sequence: row.integer(0),
                entry: Entry(
                    recordName: row.text(1), typeID: row.integer(2), kind: kind, creator: row.text(4), time: row.integer(5),
                    tree: row.optionalText(6), modifier: row.optionalText(7), via: row.optionalText(8)))
        }
    }

    /// The sequence of the latest entry of a database's zone log; 0 for none.
    func lastZoneLogSequence(scope: Int64, owner: String, on connection: PostgresConnection) throws -> Int64 {
        try connection.execute(
            "SELECT last_seq FROM \(schema).database_counters WHERE scope = $1 AND owner = $2", [.integer(scope), .text(owner)]
        ).scalarInteger() ?? 0
    }

    /// A database's zones created, changed or deleted after `sequence`, oldest first.
    func zoneLog(scope: Int64, owner: String, after sequence: Int64, limit: Int, on connection: PostgresConnection) throws -> [ZoneLogEntry]
    {
        try connection.execute(
            "SELECT seq, name, deleted FROM \(schema).zone_log WHERE scope = $1 AND owner = $2 AND seq > $3 ORDER BY seq LIMIT $4",
            [.integer(scope), .text(owner), .integer(sequence), .integer(limit)]
        ).map { ZoneLogEntry(sequence: $0.integer(0), zoneName: $0.text(1), deleted: $0.bool(2)) }
    }
}
