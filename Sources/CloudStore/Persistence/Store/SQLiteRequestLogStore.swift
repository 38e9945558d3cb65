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
    ])

    init(path: String, synchronous: SynchronousMode) throws {
        database = try SQLiteDatabase(path: path, synchronous: synchronous, migrator: Self.migrator)
    }

    /// Writes a batch in one transaction and forgets entries from before `forgetBefore`.
    /// - Returns: the ids the entries got, in order.
    func insert(_ entries: [RequestLogEntry], forgetBefore: Int64?) throws -> [Int64] {
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
}
