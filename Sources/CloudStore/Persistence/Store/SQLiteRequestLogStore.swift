/// The request log's own SQLite file (`requests.sqlite` in the data directory), apart from
/// the catalog and the environments so that logging never contends with record writes.
final class SQLiteRequestLogStore: Sendable {
    private let database: SQLiteDatabase

    static let migrator = SQLiteMigrator(migrations: [
        // Newest first by id; each filter column has an index, which carries the id.
        """
        CREATE TABLE requests(
            id INTEGER PRIMARY KEY,
            time INTEGER NOT NULL,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            database TEXT NOT NULL,
            operation TEXT NOT NULL,
            user TEXT,
            client TEXT NOT NULL,
            status INTEGER NOT NULL,
            error_code TEXT,
            duration_us INTEGER NOT NULL,
            bytes_in INTEGER NOT NULL,
            bytes_out INTEGER NOT NULL,
            request_id TEXT NOT NULL
        );
        CREATE INDEX requests_by_time ON requests(time);
        CREATE INDEX requests_by_container ON requests(container, environment);
        CREATE INDEX requests_by_operation ON requests(operation);
        CREATE INDEX requests_by_user ON requests(user);
        CREATE INDEX requests_by_errors ON requests(status) WHERE status >= 400;
        """,
        // Every read names its container and wants the newest first: each index leads with the
        // container and ends, as SQLite indexes do, with the id, so a page is read in order from
        // the index's end instead of sorting every match (a second for 1,000,000 calls before).
        """
        DROP INDEX requests_by_container;
        DROP INDEX requests_by_operation;
        DROP INDEX requests_by_user;
        DROP INDEX requests_by_errors;
        CREATE INDEX requests_by_container ON requests(container);
        CREATE INDEX requests_by_environment ON requests(container, environment);
        CREATE INDEX requests_by_operation ON requests(container, operation);
        CREATE INDEX requests_by_user ON requests(container, user);
        CREATE INDEX requests_with_errors ON requests(container) WHERE status >= 400;
        CREATE INDEX requests_with_errors_by_environment ON requests(container, environment) WHERE status >= 400;
        """,
        // Every full index is paid for on every call (the partial ones for errors only on
        // errors): the time index goes, as the retention deletes by id, ids growing with time.
        """
        DROP INDEX requests_by_time;
        """,
        // The usage counters: one row per environment and minute, read by time span for the
        // charts and the month's transfer, and forgotten by age.
        """
        CREATE TABLE usage_minutes(
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            minute INTEGER NOT NULL,
            requests INTEGER NOT NULL,
            errors INTEGER NOT NULL,
            bytes_in INTEGER NOT NULL,
            bytes_out INTEGER NOT NULL,
            latency BLOB NOT NULL,
            storage_bytes INTEGER,
            PRIMARY KEY(container, environment, minute)
        ) WITHOUT ROWID;
        CREATE INDEX usage_minutes_by_minute ON usage_minutes(minute);
        """,
        // Fewer index entries per call: the environment filter reads the container's index
        // newest first (a container has two environments), and calls of the world, most of a
        // public app's, carry no user and need no entry in the user index.
        """
        DROP INDEX requests_by_environment;
        DROP INDEX requests_by_user;
        CREATE INDEX requests_by_user ON requests(container, user) WHERE user IS NOT NULL;
        """,
    ])

    init(path: String, synchronous: SynchronousMode) throws {
        database = try SQLiteDatabase(path: path, synchronous: synchronous, migrator: Self.migrator)
    }

    /// Writes a batch and the usage minutes it changed in one transaction, and forgets entries
    /// from before `forgetBefore` (and usage minutes from before `forgetUsageBefore`).
    /// - Returns: the ids the entries got, in order.
    func insert(_ entries: [RequestLogEntry], usage: [UsageMinute], forgetBefore: Int64?, forgetUsageBefore: Int64?) throws -> [Int64] {
        try database.write { connection in
            var ids: [Int64] = []
            ids.reserveCapacity(entries.count)
            let insert = try connection.statement(
                """
                INSERT INTO requests(time, container, environment, database, operation, user, client, status, error_code, duration_us,
                                     bytes_in, bytes_out, request_id) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for entry in entries {
                try insert.execute([
                    .integer(entry.time), .text(entry.container), .text(entry.environment), .text(entry.database), .text(entry.operation),
                    .text(entry.user), .text(entry.clientAddress), .integer(Int64(entry.status)), .text(entry.serverErrorCode),
                    .integer(entry.durationMicroseconds), .integer(entry.bytesIn), .integer(entry.bytesOut), .text(entry.requestID),
                ])
                ids.append(connection.lastInsertRowID)
            }
            let minute = try connection.statement(
                """
                INSERT OR REPLACE INTO usage_minutes(container, environment, minute, requests, errors, bytes_in, bytes_out, latency,
                                                     storage_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for row in usage {
                try minute.execute([
                    .text(row.container), .text(row.environment), .integer(row.minute), .integer(row.requests), .integer(row.errors),
                    .integer(row.bytesIn), .integer(row.bytesOut), .blob(row.latency.encoded()), row.storageBytes.map(SQLiteValue.integer) ?? .null,
                ])
            }
            if let forgetUsageBefore {
                try connection.statement("DELETE FROM usage_minutes WHERE minute < ?").execute([.integer(forgetUsageBefore / 60_000)])
            }
            if let forgetBefore {
                // Calls are written in the order they come, so the old ones are the first ids:
                // find where the kept ones begin, reading from the start, and delete below it.
                let firstKept = try connection.statement("SELECT id FROM requests WHERE time >= ? ORDER BY id LIMIT 1")
                    .firstRow([.integer(forgetBefore)]) { $0.integer(0) }
                if let firstKept {
                    try connection.statement("DELETE FROM requests WHERE id < ?").execute([.integer(firstKept)])
                } else {
                    try connection.statement("DELETE FROM requests").execute()
                }
            }
            return ids
        }
    }

    func entries(_ filter: RequestLogFilter) throws -> [RequestLogEntry] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        func add(_ condition: String, _ value: SQLiteValue) {
            conditions.append(condition)
            values.append(value)
        }
        if let container = filter.container { add("container = ?", .text(container)) }
        if let environment = filter.environment { add("environment = ?", .text(environment)) }
        if let database = filter.database { add("database = ?", .text(database)) }
        if let operation = filter.operation { add("operation = ?", .text(operation)) }
        if let user = filter.user { add("user = ?", .text(user)) }
        if let status = filter.status { add("status = ?", .integer(Int64(status))) }
        if filter.errorsOnly { conditions.append("status >= 400") }
        if let from = filter.from { add("time >= ?", .integer(from)) }
        if let to = filter.to { add("time < ?", .integer(to)) }
        if let before = filter.before { add("id < ?", .integer(before)) }
        let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        values.append(.integer(Int64(max(1, min(filter.limit, 10_000)))))
        return try database.read { connection in
            try connection.statement(
                """
                SELECT id, time, container, environment, database, operation, user, client, status, error_code, duration_us, bytes_in,
                       bytes_out, request_id FROM requests\(clause) ORDER BY id DESC LIMIT ?
                """
            ).rows(values) { row in
                var entry = RequestLogEntry(
                    time: row.integer(1), container: row.text(2), environment: row.text(3), database: row.text(4), operation: row.text(5),
                    user: row.optionalText(6), clientAddress: row.text(7), status: Int(row.integer(8)), serverErrorCode: row.optionalText(9),
                    durationMicroseconds: row.integer(10), bytesIn: row.integer(11), bytesOut: row.integer(12), requestID: row.text(13))
                entry.id = row.integer(0)
                return entry
            }
        }
    }

    // MARK: - Usage counters

    private static let minuteColumns = "minute, requests, errors, bytes_in, bytes_out, latency, storage_bytes"

    private static func usageMinute(_ key: UsageMeter.Key, _ row: SQLiteRow) -> UsageMinute {
        var minute = UsageMinute(container: key.container, environment: key.environment, minute: row.integer(0))
        minute.requests = row.integer(1)
        minute.errors = row.integer(2)
        minute.bytesIn = row.integer(3)
        minute.bytesOut = row.integer(4)
        minute.latency = LatencyHistogram(encoded: row.blob(5))
        minute.storageBytes = row.optionalInteger(6)
        return minute
    }

    /// One environment's minute, if written.
    func usageMinute(_ key: UsageMeter.Key, minute: Int64) throws -> UsageMinute? {
        try database.read { connection in
            try connection.statement(
                "SELECT \(Self.minuteColumns) FROM usage_minutes WHERE container = ? AND environment = ? AND minute = ?"
            ).firstRow([.text(key.container), .text(key.environment), .integer(minute)]) { Self.usageMinute(key, $0) }
        }
    }

    /// One environment's minutes from `fromMinute` up to (not including) `toMinute`, oldest first.
    func usageMinutes(_ key: UsageMeter.Key, fromMinute: Int64, toMinute: Int64) throws -> [UsageMinute] {
        try database.read { connection in
            try connection.statement(
                """
                SELECT \(Self.minuteColumns) FROM usage_minutes WHERE container = ? AND environment = ? AND minute >= ? AND minute < ?
                ORDER BY minute
                """
            ).rows([.text(key.container), .text(key.environment), .integer(fromMinute), .integer(toMinute)]) { Self.usageMinute(key, $0) }
        }
    }

    /// The storage last measured for an environment before `minute`.
    func storageBytes(_ key: UsageMeter.Key, before minute: Int64) throws -> Int64? {
        try database.read { connection in
            try connection.statement(
                """
                SELECT storage_bytes FROM usage_minutes WHERE container = ? AND environment = ? AND minute < ? AND storage_bytes IS NOT NULL
                ORDER BY minute DESC LIMIT 1
                """
            ).firstRow([.text(key.container), .text(key.environment), .integer(minute)]) { $0.integer(0) }
        }
    }

    /// Bytes in and out of an environment's API from `fromMinute` up to `toMinute`.
    func transfer(_ key: UsageMeter.Key, fromMinute: Int64, toMinute: Int64) throws -> Int64 {
        try database.read { connection in
            try connection.statement(
                """
                SELECT coalesce(sum(bytes_in + bytes_out), 0) FROM usage_minutes
                WHERE container = ? AND environment = ? AND minute >= ? AND minute < ?
                """
            ).scalarInteger([.text(key.container), .text(key.environment), .integer(fromMinute), .integer(toMinute)]) ?? 0
        }
    }
}
