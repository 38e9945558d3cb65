/// The request log and the usage counters on PostgreSQL, in the schema `requestlog` of a
/// database that several processes share, so that the console sees every process's calls and
/// the transfer quota counts every process's traffic.
///
/// Each batch is one round trip: its calls inserted from arrays, its usage added to the stored
/// minutes, and the retention applied, in one transaction. Failures leave it as
/// ``CloudStoreError``s.
final class PostgresRequestLogStore: RequestLogStorage {
    /// The connections to the database.
    let pool: PostgresPool

    var isShared: Bool { true }

    /// Opens the request log in the database `url` names, creating and migrating its schema as needed.
    /// - Throws: ``CloudStoreError`` when the database cannot be reached or migrated; its
    ///   message never holds the URL.
    convenience init(url: String) throws {
        try self.init(pool: PostgresPool(url: url))
    }

    /// Opens the request log on `pool`'s database, creating and migrating its schema as needed.
    /// - Throws: ``CloudStoreError`` when the database cannot be reached or migrated.
    init(pool: PostgresPool) throws {
        self.pool = pool
        _ = try read { connection in
            try PostgresRequestLogMigrations.migrator.migrate(connection, schema: PostgresRequestLogMigrations.schema)
        }
    }

    /// Runs `body` on a connection of its own, reporting PostgreSQL's failures as CloudStore's.
    private func read<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        try PostgresError.mapped { try pool.withConnection(body) }
    }

    // MARK: - Entries

    private static let insertEntries = """
        INSERT INTO requestlog.requests(time, container, environment, database, operation, user_name, client, status, error_code,
                                        duration_us, bytes_in, bytes_out, request_id, reason, credential, user_agent, record_types,
                                        zones, results, result_errors, failed_results, trace, schema_gap)
        SELECT time, container, environment, database, operation, user_name, client, status::integer, error_code, duration_us,
               bytes_in, bytes_out, request_id, reason, credential, user_agent, record_types, zones, results::integer, result_errors,
               failed_results::integer, trace, schema_gap
        FROM unnest($1::bigint[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[], $7::text[], $8::bigint[], $9::text[],
                    $10::bigint[], $11::bigint[], $12::bigint[], $13::text[], $14::text[], $15::text[], $16::text[], $17::text[],
                    $18::text[], $19::text[], $20::text[], $21::bigint[], $22::text[], $23::text[])
             WITH ORDINALITY AS batch(time, container, environment, database, operation, user_name, client, status, error_code,
                                      duration_us, bytes_in, bytes_out, request_id, reason, credential, user_agent, record_types,
                                      zones, results, result_errors, failed_results, trace, schema_gap, position)
        ORDER BY position
        RETURNING id
        """

    private static let addUsage = """
        INSERT INTO requestlog.usage_minutes(container, environment, minute, requests, errors, bytes_in, bytes_out, latency, storage_bytes)
        SELECT container, environment, minute, requests, errors, bytes_in, bytes_out, latency::bigint[], storage_bytes::bigint
        FROM unnest($1::text[], $2::text[], $3::bigint[], $4::bigint[], $5::bigint[], $6::bigint[], $7::bigint[], $8::text[], $9::text[])
             AS added(container, environment, minute, requests, errors, bytes_in, bytes_out, latency, storage_bytes)
        ON CONFLICT (container, environment, minute) DO UPDATE SET
            requests = usage_minutes.requests + excluded.requests,
            errors = usage_minutes.errors + excluded.errors,
            bytes_in = usage_minutes.bytes_in + excluded.bytes_in,
            bytes_out = usage_minutes.bytes_out + excluded.bytes_out,
            latency = requestlog.merge_latency(usage_minutes.latency, excluded.latency),
            storage_bytes = coalesce(usage_minutes.storage_bytes, excluded.storage_bytes)
        """

    /// Inserts `batch` and adds `usage` in one round trip; see
    /// ``RequestLogStorage/append(_:usage:forgetBefore:forgetUsageBefore:)``.
    func append(_ batch: [RequestLogEntry], usage: [UsageMinute], forgetBefore: Int64?, forgetUsageBefore: Int64?) throws -> [Int64] {
        var statements: [(sql: String, values: [PostgresValue])] = [(sql: "BEGIN", values: [])]
        if !batch.isEmpty { statements.append((sql: Self.insertEntries, values: Self.columns(of: batch))) }
        if !usage.isEmpty { statements.append((sql: Self.addUsage, values: Self.columns(of: usage))) }
        if let forgetUsageBefore {
            statements.append(
                (sql: "DELETE FROM requestlog.usage_minutes WHERE minute < $1", values: [.integer(forgetUsageBefore / 60_000)]))
        }
        if let forgetBefore {
            statements.append((sql: "DELETE FROM requestlog.requests WHERE time < $1", values: [.integer(forgetBefore)]))
        }
        statements.append((sql: "COMMIT", values: []))
        return try read { connection in
            do {
                let results = try connection.pipeline(statements)
                guard !batch.isEmpty else { return [] }
                // Ids are drawn in the order the rows are inserted, which is the batch's; sorted,
                // since the order RETURNING gives them in is not promised.
                let ids = results[1].map { $0.integer(0) }.sorted()
                guard ids.count == batch.count else {
                    throw CloudStoreError.internalError("The request log stored \(ids.count) of \(batch.count) calls")
                }
                return ids
            } catch {
                // A failed statement leaves the transaction open and aborted.
                if connection.inTransaction { connection.rollback() }
                throw error
            }
        }
    }

    /// The entries' fields as arrays, one parameter each, in the order of ``insertEntries``.
    private static func columns(of batch: [RequestLogEntry]) -> [PostgresValue] {
        [
            .integerArray(batch.map(\.time)), .textArray(batch.map(\.container)), .textArray(batch.map(\.environment)),
            .textArray(batch.map(\.database)), .textArray(batch.map(\.operation)), .textArray(batch.map(\.user)),
            .textArray(batch.map(\.clientAddress)), .integerArray(batch.map { Int64($0.status) }), .textArray(batch.map(\.serverErrorCode)),
            .integerArray(batch.map(\.durationMicroseconds)), .integerArray(batch.map(\.bytesIn)), .integerArray(batch.map(\.bytesOut)),
            .textArray(batch.map(\.requestID)), .textArray(batch.map(\.reason)), .textArray(batch.map { $0.credential?.packed }),
            .textArray(batch.map(\.userAgent)), .textArray(batch.map(\.recordTypes)), .textArray(batch.map(\.zones)),
            .textArray(batch.map { $0.results.map(String.init) }), .textArray(batch.map(\.packedResultErrors)),
            .integerArray(batch.map { Int64($0.failedResults) }), .textArray(batch.map(\.packedTrace)),
            .textArray(batch.map { $0.schemaGap?.packed }),
        ]
    }

    /// The minutes' fields as arrays, in the order of ``addUsage``; histograms and the storage
    /// measured (which may be missing) as texts, each cast in SQL.
    private static func columns(of usage: [UsageMinute]) -> [PostgresValue] {
        [
            .textArray(usage.map(\.container)), .textArray(usage.map(\.environment)), .integerArray(usage.map(\.minute)),
            .integerArray(usage.map(\.requests)), .integerArray(usage.map(\.errors)), .integerArray(usage.map(\.bytesIn)),
            .integerArray(usage.map(\.bytesOut)), .textArray(usage.map { packed($0.latency) }),
            .textArray(usage.map { $0.storageBytes.map(String.init) }),
        ]
    }

    /// The entries `filter` selects, newest first.
    func anonymiseUser(_ user: String, in container: String, as replacement: String) throws -> Int {
        try read { connection in
            try connection.execute(
                """
                UPDATE requestlog.requests
                SET user_name = CASE WHEN user_name = $3 THEN $1 ELSE user_name END, trace = replace(trace, $3, $1)
                WHERE container = $2 AND (user_name = $3 OR strpos(trace, $3) > 0)
                RETURNING user_name
                """,
                [.text(replacement), .text(container), .text(user)]
                // Calls of others whose trace named the user are rewritten too, and not counted.
            ).map { $0.optionalText(0) == replacement }.filter { $0 }.count
        }
    }

    func entries(_ filter: RequestLogFilter) throws -> [RequestLogEntry] {
        var conditions: [String] = []
        var values: [PostgresValue] = []
        func add(_ condition: (String) -> String, _ value: PostgresValue) {
            values.append(value)
            conditions.append(condition("$\(values.count)"))
        }
        let columns: [(String, String?)] = [
            ("container", filter.container), ("environment", filter.environment), ("database", filter.database),
            ("operation", filter.operation), ("user_name", filter.user),
        ]
        for case (let column, let value?) in columns { add({ "\(column) = \($0)" }, .text(value)) }
        if let status = filter.status { add({ "status = \($0)" }, .integer(status)) }
        if filter.errorsOnly { conditions.append("(status >= 400 OR failed_results > 0)") }
        if let from = filter.from { add({ "time >= \($0)" }, .integer(from)) }
        if let to = filter.to { add({ "time < \($0)" }, .integer(to)) }
        if let before = filter.before { add({ "id < \($0)" }, .integer(before)) }
        // A lookup by request id, rare and by an operator, reads the retention's rows: no index is kept for it.
        if let requestID = filter.requestID { add({ "request_id = \($0)" }, .text(requestID)) }
        if filter.schemaRefusalsOnly { conditions.append("schema_gap IS NOT NULL") }
        let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        values.append(.integer(max(1, min(filter.limit, 10_000))))
        return try read { connection in
            try connection.execute(
                """
                SELECT id, time, container, environment, database, operation, user_name, client, status, error_code, duration_us,
                       bytes_in, bytes_out, request_id, reason, credential, user_agent, record_types, zones, results, result_errors,
                       trace, schema_gap
                FROM requestlog.requests\(clause) ORDER BY id DESC LIMIT $\(values.count)
                """, values
            ).map { row in
                var entry = RequestLogEntry(
                    time: row.integer(1), container: row.text(2), environment: row.text(3), database: row.text(4), operation: row.text(5),
                    user: row.optionalText(6), clientAddress: row.text(7), status: Int(row.integer(8)),
                    serverErrorCode: row.optionalText(9),
                    durationMicroseconds: row.integer(10), bytesIn: row.integer(11), bytesOut: row.integer(12), requestID: row.text(13))
                entry.reason = row.optionalText(14)
                entry.credential = RequestLogCredential(packed: row.optionalText(15))
                entry.userAgent = row.optionalText(16)
                entry.recordTypes = row.optionalText(17)
                entry.zones = row.optionalText(18)
                entry.results = row.optionalInteger(19).map { Int($0) }
                entry.resultErrors = RequestLogEntry.resultErrors(packed: row.optionalText(20))
                entry.trace = RequestLogTrace.unpacked(row.optionalText(21))
                entry.schemaGap = SchemaGap(packed: row.optionalText(22))
                entry.id = row.integer(0)
                return entry
            }
        }
    }

    // MARK: - Usage counters

    /// One environment's minutes from `fromMinute` up to (not including) `toMinute`, oldest first.
    func usageMinutes(_ key: UsageMeter.Key, fromMinute: Int64, toMinute: Int64) throws -> [UsageMinute] {
        try read { connection in
            try connection.execute(
                """
                SELECT minute, requests, errors, bytes_in, bytes_out, array_to_string(latency, ','), storage_bytes
                FROM requestlog.usage_minutes WHERE container = $1 AND environment = $2 AND minute >= $3 AND minute < $4
                ORDER BY minute
                """, [.text(key.container), .text(key.environment), .integer(fromMinute), .integer(toMinute)]
            ).map { row in
                var minute = UsageMinute(container: key.container, environment: key.environment, minute: row.integer(0))
                minute.requests = row.integer(1)
                minute.errors = row.integer(2)
                minute.bytesIn = row.integer(3)
                minute.bytesOut = row.integer(4)
                minute.latency = Self.histogram(packed: row.text(5))
                minute.storageBytes = row.optionalInteger(6)
                return minute
            }
        }
    }

    /// The storage last measured for an environment before `minute`.
    func storageBytes(_ key: UsageMeter.Key, before minute: Int64) throws -> Int64? {
        try read { connection in
            try connection.execute(
                """
                SELECT storage_bytes FROM requestlog.usage_minutes
                WHERE container = $1 AND environment = $2 AND minute < $3 AND storage_bytes IS NOT NULL
                ORDER BY minute DESC LIMIT 1
                """, [.text(key.container), .text(key.environment), .integer(minute)]
            ).scalarInteger()
        }
    }

    // MARK: - Size bound

    /// What one row is taken to weigh, in bytes, in SQL: the newest thousand calls' average
    /// size, and 64 bytes of line pointer and index entries.
    private static let bytesPerRow = """
        (SELECT coalesce(avg(pg_column_size(newest.*)), 0) + 64
         FROM (SELECT * FROM requestlog.requests ORDER BY id DESC LIMIT 1000) AS newest)
        """

    /// An estimate of the calls' bytes: the calls between the oldest and the newest id (an
    /// identity column, so gaps only make it larger) times what a row weighs. Not
    /// `pg_total_relation_size`: the table keeps the pages of deleted rows for the ones that
    /// follow (after autovacuum), so its size never falls and could not tell when enough was forgotten.
    func storedBytes() throws -> Int64 {
        try read { connection in
            try connection.execute(
                "SELECT (coalesce(max(id) - min(id) + 1, 0) * \(Self.bytesPerRow))::bigint FROM requestlog.requests"
            ).scalarInteger() ?? 0
        }
    }

    /// Forgets the oldest calls, keeping as many of the newest as `bytes` holds by the same estimate.
    func forgetOldest(downTo bytes: Int64) throws {
        _ = try read { connection in
            try connection.execute(
                """
                DELETE FROM requestlog.requests
                WHERE id <= (SELECT max(id) FROM requestlog.requests) - ($1::bigint / \(Self.bytesPerRow))::bigint
                """, [.integer(bytes)])
        }
    }

    /// Bytes in and out of an environment's API from `fromMinute` up to `toMinute`, every process's.
    func transfer(_ key: UsageMeter.Key, fromMinute: Int64, toMinute: Int64) throws -> Int64 {
        try read { connection in
            try connection.execute(
                """
                SELECT coalesce(sum(bytes_in + bytes_out), 0)::bigint FROM requestlog.usage_minutes
                WHERE container = $1 AND environment = $2 AND minute >= $3 AND minute < $4
                """, [.text(key.container), .text(key.environment), .integer(fromMinute), .integer(toMinute)]
            ).scalarInteger() ?? 0
        }
    }

    // MARK: - Latency histograms

    /// Bits of a packed bucket that hold its count; the bucket's index is above them.
    private static let countBits: Int64 = 40

    /// A histogram as a `bigint[]` literal of its non-empty buckets, packed as the column keeps them.
    static func packed(_ histogram: LatencyHistogram) -> String {
        let buckets = histogram.counts.enumerated().filter { $0.element > 0 }.map { String(Int64($0.offset) << countBits | $0.element) }
        return "{" + buckets.joined(separator: ",") + "}"
    }

    /// A histogram from its packed buckets, comma-separated; what cannot be read is left out.
    private static func histogram(packed text: String) -> LatencyHistogram {
        // Made through the histogram's own encoding, pairs of bucket and count.
        var writer = BinaryWriter()
        for part in text.split(separator: ",") {
            guard let packed = Int64(part), packed >= 0 else { continue }
            writer.varint(UInt64(packed >> countBits))
            writer.varint(UInt64(packed & (1 << countBits - 1)))
        }
        return LatencyHistogram(encoded: writer.bytes)
    }
}
