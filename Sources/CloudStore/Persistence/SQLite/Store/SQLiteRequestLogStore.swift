import Synchronization

/// The request log's own SQLite file (`requests.sqlite` in the data directory), apart from
/// the catalog and the environments so that logging never contends with record writes.
///
/// Only this process writes to it; entries are kept in blocks (``RequestLogBlock``), the newest
/// of which is written again with every batch until it closes.
final class SQLiteRequestLogStore: RequestLogStorage {
    private let database: SQLiteDatabase
    /// The block being filled. Appends come from one queue; the lock is never contended.
    private let openBlock = Mutex<RequestLogBlock?>(nil)

    var isShared: Bool { false }

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
        // Calls kept in blocks of up to a thousand, one row each with a summary of what it
        // holds (``RequestLogBlock``): a row and index entries per call cost more than the call.
        // The rows of the layout before are moved into blocks when the file is opened.
        """
        CREATE TABLE request_blocks(
            first_id INTEGER PRIMARY KEY,
            count INTEGER NOT NULL,
            first_time INTEGER NOT NULL,
            last_time INTEGER NOT NULL,
            errors INTEGER NOT NULL,
            terms TEXT NOT NULL,
            entries BLOB NOT NULL
        );
        """,
    ])

    init(path: String, synchronous: SynchronousMode) throws {
        database = try SQLiteDatabase(path: path, synchronous: synchronous, migrator: Self.migrator)
        try convertRowsToBlocks()
    }

    /// The id of the newest entry written; 0 for an empty log.
    func lastID() throws -> Int64 {
        try database.read { connection in
            try connection.statement("SELECT max(first_id + count - 1) FROM request_blocks").scalarInteger() ?? 0
        }
    }

    /// Stores `batch` in the open block, and in new ones as it fills or ages; see
    /// ``RequestLogStorage/append(_:usage:forgetBefore:forgetUsageBefore:)``.
    func append(_ batch: [RequestLogEntry], usage: [UsageMinute], forgetBefore: Int64?, forgetUsageBefore: Int64?) throws -> [Int64] {
        try openBlock.withLock { open in
            var block = try open ?? RequestLogBlock(firstID: lastID() + 1)
            let firstID = block.nextID
            var blocks: [RequestLogBlock] = []
            for entry in batch {
                if block.isClosed(before: entry.time) {
                    blocks.append(block)
                    block = RequestLogBlock(firstID: block.nextID)
                }
                block.append(entry)
            }
            if block.count > 0 { blocks.append(block) }
            do {
                try write(blocks, usage: usage, forgetBefore: forgetBefore, forgetUsageBefore: forgetUsageBefore)
            } catch {
                // The batch is left out (a full disk would otherwise grow the open block in
                // memory without end): the next one starts a block after those stored.
                open = nil
                throw error
            }
            open = block
            return Array(firstID..<firstID + Int64(batch.count))
        }
    }

    /// Writes blocks (new ones, or ones written before with fewer entries) and adds the usage
    /// minutes to those stored in one transaction, and forgets blocks whose every entry is from
    /// before `forgetBefore` (and usage minutes from before `forgetUsageBefore`).
    func write(_ blocks: [RequestLogBlock], usage: [UsageMinute], forgetBefore: Int64?, forgetUsageBefore: Int64?) throws {
        try database.write { connection in
            for block in blocks { try Self.insert(block, connection) }
            let stored = try connection.statement(
                "SELECT \(Self.minuteColumns) FROM usage_minutes WHERE container = ? AND environment = ? AND minute = ?")
            let minute = try connection.statement(
                """
                INSERT OR REPLACE INTO usage_minutes(container, environment, minute, requests, errors, bytes_in, bytes_out, latency,
                                                     storage_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for added in usage {
                // Read and merged here rather than in SQL: the latency histogram is a blob.
                let key = UsageMeter.Key(container: added.container, environment: added.environment)
                var row =
                    try stored.firstRow([.text(added.container), .text(added.environment), .integer(added.minute)]) {
                        Self.usageMinute(key, $0)
                    } ?? UsageMinute(container: added.container, environment: added.environment, minute: added.minute)
                row.add(added)
                try minute.execute([
                    .text(row.container), .text(row.environment), .integer(row.minute), .integer(row.requests), .integer(row.errors),
                    .integer(row.bytesIn), .integer(row.bytesOut), .blob(row.latency.encoded()),
                    row.storageBytes.map(SQLiteValue.integer) ?? .null,
                ])
            }
            if let forgetUsageBefore {
                try connection.statement("DELETE FROM usage_minutes WHERE minute < ?").execute([.integer(forgetUsageBefore / 60_000)])
            }
            if let forgetBefore {
                try connection.statement("DELETE FROM request_blocks WHERE last_time < ?").execute([.integer(forgetBefore)])
            }
        }
    }

    // MARK: - Size bound

    /// The bytes of the file's pages in use (those freed by forgotten blocks are reused, so the
    /// file grows no larger than this has been).
    func storedBytes() throws -> Int64 {
        try database.read { try Self.usedBytes($0) }
    }

    private static func usedBytes(_ connection: SQLiteConnection) throws -> Int64 {
        try connection.statement(
            """
            SELECT ((SELECT page_count FROM pragma_page_count()) - (SELECT freelist_count FROM pragma_freelist_count()))
                   * (SELECT page_size FROM pragma_page_size())
            """
        ).scalarInteger() ?? 0
    }

    /// Forgets the oldest blocks, whole, until the pages in use are at most `bytes`; the newest
    /// block stays, so that ids go on from it.
    func forgetOldest(downTo bytes: Int64) throws {
        try openBlock.withLock { _ in
            try database.write { connection in
                // A block's payload is near what it takes in pages; a few passes make up the rest.
                for _ in 0..<4 {
                    let excess = try Self.usedBytes(connection) - bytes
                    guard excess > 0 else { return }
                    try connection.statement(
                        """
                        DELETE FROM request_blocks WHERE first_id < (SELECT max(first_id) FROM request_blocks) AND first_id <= coalesce((
                            SELECT first_id FROM (
                                SELECT first_id, sum(length(entries) + length(terms) + 64) OVER (ORDER BY first_id) AS running
                                FROM request_blocks)
                            WHERE running >= ? ORDER BY first_id LIMIT 1), (SELECT max(first_id) FROM request_blocks))
                        """
                    ).execute([.integer(excess)])
                    guard connection.changes > 0 else { return }
                }
            }
        }
    }

    /// Limits the file to `pages` pages (`nil`: SQLite's own limit), so that a write past it
    /// fails as on a full disk: what tests of a full disk use, the failure being real.
    func limitPages(_ pages: Int64?) throws {
        try database.write { connection in
            _ = try connection.statement("PRAGMA max_page_count = \(pages ?? 4_294_967_294)").scalarInteger()
        }
    }

    private static func insert(_ block: RequestLogBlock, _ connection: SQLiteConnection) throws {
        try connection.statement(
            """
            INSERT OR REPLACE INTO request_blocks(first_id, count, first_time, last_time, errors, terms, entries)
            VALUES (?, ?, ?, ?, ?, ?, ?)
            """
        ).execute([
            .integer(block.firstID), .integer(Int64(block.count)), .integer(block.firstTime), .integer(block.lastTime),
            .integer(Int64(block.errors)), .text(block.termsText), .blob(block.encoded()),
        ])
    }

    /// The entries `filter` selects, newest first: blocks are read newest first, those that
    /// cannot hold a match passed by on their summary, until the page is full.
    func entries(_ filter: RequestLogFilter) throws -> [RequestLogEntry] {
        var conditions: [String] = []
        var values: [SQLiteValue] = []
        func add(_ condition: String, _ value: SQLiteValue) {
            conditions.append(condition)
            values.append(value)
        }
        let terms: [(RequestLogBlock.Term, String?)] = [
            (.container, filter.container), (.environment, filter.environment), (.database, filter.database),
            (.operation, filter.operation), (.user, filter.user), (.status, filter.status.map { String($0) }),
        ]
        for case (let term, let value?) in terms { add("instr(terms, ?) > 0", .text(term.text(value))) }
        if filter.errorsOnly { conditions.append("errors > 0") }
        if filter.schemaRefusalsOnly { add("instr(terms, ?) > 0", .text("\n" + RequestLogBlock.schemaRefusalTerm + "\n")) }
        if let from = filter.from { add("last_time >= ?", .integer(from)) }
        if let to = filter.to { add("first_time < ?", .integer(to)) }
        if let before = filter.before { add("first_id < ?", .integer(before)) }
        let clause = conditions.isEmpty ? "" : " WHERE " + conditions.joined(separator: " AND ")
        let limit = max(1, min(filter.limit, 10_000))
        return try database.read { connection in
            var found: [RequestLogEntry] = []
            try connection.statement("SELECT first_id, entries FROM request_blocks\(clause) ORDER BY first_id DESC").each(values) { row in
                found += try RequestLogBlock.entries(
                    firstID: row.integer(0), encoded: row.blob(1), matching: filter, limit: limit - found.count)
                return found.count < limit
            }
            return found
        }
    }

    /// Rewrites each block holding `user`'s calls in `container` with `replacement` in their place,
    /// in one transaction; the open block is closed, so that the next batch starts a new one.
    func anonymiseUser(_ user: String, in container: String, as replacement: String) throws -> Int {
        try openBlock.withLock { open in
            open = nil
            return try database.write { connection in
                var changed = 0
                var rewritten: [RequestLogBlock] = []
                // The user's own calls, and others' whose access trace names them (as a record's creator).
                try connection.statement(
                    """
                    SELECT first_id, entries FROM request_blocks
                    WHERE instr(terms, ?) > 0 AND (instr(terms, ?) > 0 OR instr(entries, CAST(? AS BLOB)) > 0)
                    """
                )
                .each([
                    .text(RequestLogBlock.Term.container.text(container)), .text(RequestLogBlock.Term.user.text(user)),
                    .blob(Array(user.utf8)),
                ]) { row in
                    let firstID = row.integer(0)
                    let entries = try RequestLogBlock.entries(
                        firstID: firstID, encoded: row.blob(1), matching: RequestLogFilter(), limit: Int.max
                    ).sorted { $0.id < $1.id }
                    var block = RequestLogBlock(firstID: firstID)
                    for var entry in entries {
                        if entry.container == container, entry.anonymise(user, as: replacement) { changed += 1 }
                        block.append(entry)
                    }
                    rewritten.append(block)
                    return true
                }
                for block in rewritten { try Self.insert(block, connection) }
                return changed
            }
        }
    }

    /// Moves the rows of the log's first layout, one per call, into blocks, once.
    private func convertRowsToBlocks() throws {
        try database.write { connection in
            guard
                try connection.statement("SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'requests'")
                    .scalarInteger() == 1
            else { return }
            var block: RequestLogBlock?
            try connection.statement(
                """
                SELECT id, time, container, environment, database, operation, user, client, status, error_code, duration_us, bytes_in,
                       bytes_out, request_id FROM requests ORDER BY id
                """
            ).each { row in
                let id = row.integer(0)
                let entry = RequestLogEntry(
                    time: row.integer(1), container: row.text(2), environment: row.text(3), database: row.text(4), operation: row.text(5),
                    user: row.optionalText(6), clientAddress: row.text(7), status: Int(row.integer(8)),
                    serverErrorCode: row.optionalText(9),
                    durationMicroseconds: row.integer(10), bytesIn: row.integer(11), bytesOut: row.integer(12), requestID: row.text(13))
                // A block's ids follow one another: a gap in the old ids starts a new one.
                if let open = block, open.nextID != id || open.isClosed(before: entry.time) {
                    try Self.insert(open, connection)
                    block = nil
                }
                if block == nil { block = RequestLogBlock(firstID: id) }
                block?.append(entry)
                return true
            }
            if let block { try Self.insert(block, connection) }
            try connection.execute("DROP TABLE requests")
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
