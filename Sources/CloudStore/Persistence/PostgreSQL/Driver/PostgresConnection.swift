import CLibPQ

#if canImport(Glibc)
    import Glibc
#endif

/// One connection to PostgreSQL through libpq, with its prepared statements.
///
/// Calls block the calling thread for their round trips, as SQLite's calls do: the store makes
/// them on request threads of the worker pool, never on an event loop. A connection is not
/// shared: the pool hands each to one thread at a time. It is `@unchecked Sendable` so that it
/// can move between those threads; the pool's lock orders every hand-over, so no two threads
/// ever use it at once.
final class PostgresConnection: @unchecked Sendable {
    private let handle: OpaquePointer
    /// The names of the statements prepared on this connection, by their text.
    private var prepared: [String: String] = [:]
    /// Whether a failure left the connection unusable: the pool then drops it.
    private(set) var isBroken = false
    /// Whether a transaction is open.
    private(set) var inTransaction = false
    /// Round trips to the server so far (a statement, a script, a pipeline, a prepare, a copy):
    /// what the pool counts for metrics.
    private(set) var roundTrips = 0

    /// Connects to the server a `postgres://` URL (or a libpq connection string) names.
    /// - Throws: ``PostgresError`` whose message never holds the URL's password.
    init(url: String, applicationName: String = "cumulus") throws(PostgresError) {
        // Kerberos encryption off unless the URL asks for it (keywords before `dbname` yield to
        // the URL's): libpq's attempt at it by default brought its mutexes into every process,
        // one of which once aborted a command at exit.
        let keywords = ["gssencmode", "dbname", "application_name", "connect_timeout"]
        let values = ["disable", url, applicationName, "10"]
        let handle = Self.withCStrings(keywords) { keys in
            Self.withCStrings(values) { values in PQconnectdbParams(keys, values, 1) }
        }
        guard let handle else { throw PostgresError(sqlState: "", message: "libpq could not allocate a connection") }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = String(cString: PQerrorMessage(handle)).trimmingWhitespace
            PQfinish(handle)
            throw PostgresError(sqlState: "", message: "Cannot connect to PostgreSQL: \(message)")
        }
        self.handle = handle
        // Notices (a table that already exists, a savepoint's warnings) would go to stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit { PQfinish(handle) }

    /// The socket, for waiting on notifications with `poll` or epoll.
    var socket: Int32 { PQsocket(handle) }

    // MARK: - Statements

    /// Runs one statement with `values` bound to `$1`, `$2`, …, prepared once per connection.
    @discardableResult
    func execute(_ sql: String, _ values: [PostgresValue] = []) throws(PostgresError) -> PostgresResult {
        let name = try prepare(sql, parameterCount: values.count)
        roundTrips += 1
        let result = Self.withParameters(values) { count, pointers, lengths, formats in
            PQexecPrepared(handle, name, count, pointers, lengths, formats, 1)
        }
        return try check(result, sql: sql)
    }

    /// Runs `sql`, which may hold several statements and no parameters, by the simple protocol:
    /// for migrations and session settings.
    func executeScript(_ sql: String) throws(PostgresError) {
        roundTrips += 1
        _ = try check(PQexec(handle, sql), sql: sql)
    }

    /// Sends every statement in one pipeline and waits once for all their results: one round
    /// trip, as the write transaction's last statement and `COMMIT` need. If one fails, the
    /// server skips the rest, and the error thrown is the first failure.
    func pipeline(_ statements: [(sql: String, values: [PostgresValue])]) throws(PostgresError) -> [PostgresResult] {
        var names: [String?] = []
        for statement in statements {
            // Statements without parameters (COMMIT) are sent unprepared.
            names.append(statement.values.isEmpty ? nil : try prepare(statement.sql, parameterCount: statement.values.count))
        }
        guard PQenterPipelineMode(handle) == 1 else { throw failure(sql: nil) }
        defer { _ = PQexitPipelineMode(handle) }
        for (statement, name) in zip(statements, names) {
            let sent = Self.withParameters(statement.values) { count, pointers, lengths, formats in
                if let name { return PQsendQueryPrepared(handle, name, count, pointers, lengths, formats, 1) }
                return PQsendQueryParams(handle, statement.sql, 0, nil, nil, nil, nil, 1)
            }
            guard sent == 1 else { throw failure(sql: statement.sql) }
        }
        guard PQpipelineSync(handle) == 1 else { throw failure(sql: nil) }
        roundTrips += 1
        var results: [PostgresResult] = []
        var firstError: PostgresError?
        for statement in statements {
            guard let result = PQgetResult(handle) else { throw failure(sql: statement.sql) }
            // Each statement's result is followed by a NULL that ends it.
            while let extra = PQgetResult(handle) { PQclear(extra) }
            let status = PQresultStatus(result)
            if status == PGRES_PIPELINE_ABORTED {
                PQclear(result)
                continue
            }
            do {
                results.append(try check(result, sql: statement.sql))
            } catch {
                if firstError == nil { firstError = error }
            }
        }
        // The sync point's own result.
        while let result = PQgetResult(handle) {
            let status = PQresultStatus(result)
            PQclear(result)
            if status == PGRES_PIPELINE_SYNC { break }
        }
        updateTransactionState()
        if let firstError { throw firstError }
        return results
    }

    // MARK: - Transactions

    /// Begins a transaction at READ COMMITTED, PostgreSQL's default: the change feed's
    /// counter-row lock relies on it (a second writer waits, then sees the newest counter).
    func begin() throws(PostgresError) {
        try executeScript("BEGIN")
    }

    /// Begins a read-only transaction on one snapshot: every statement in it sees the same data.
    func beginSnapshot() throws(PostgresError) {
        try executeScript("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    /// Begins a read-only transaction on one snapshot and runs `sql` in it, in one round trip:
    /// what every read asks first.
    /// - Returns: The statement's result.
    func beginSnapshot(then sql: String) throws(PostgresError) -> PostgresResult {
        let results = try pipeline([("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", []), (sql, [])])
        guard results.count == 2 else { throw PostgresError(sqlState: "", message: "A pipelined read began without an answer", sql: sql) }
        return results[1]
    }

    /// Commits the open transaction.
    func commit() throws(PostgresError) {
        try executeScript("COMMIT")
    }

    /// Rolls the open transaction back; never throws, since a broken connection has none left.
    func rollback() {
        guard !isBroken else { return }
        roundTrips += 1
        if let result = PQexec(handle, "ROLLBACK") { PQclear(result) }
        updateTransactionState()
        if PQstatus(handle) != CONNECTION_OK { isBroken = true }
    }

    /// Runs `body` in a transaction: committed when it returns, rolled back when it throws.
    func transaction<T>(snapshot: Bool = false, _ body: () throws -> T) throws -> T {
        if snapshot { try beginSnapshot() } else { try begin() }
        do {
            let value = try body()
            try commit()
            return value
        } catch {
            rollback()
            throw error
        }
    }

    /// Runs `body` inside a savepoint: if it throws, only what it did is undone.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        try executeScript("SAVEPOINT job")
        do {
            let value = try body()
            try executeScript("RELEASE SAVEPOINT job")
            return value
        } catch {
            if !isBroken { try? executeScript("ROLLBACK TO SAVEPOINT job; RELEASE SAVEPOINT job") }
            throw error
        }
    }

    // MARK: - Notifications

    /// A notification received on a channel this connection listens to.
    struct Notification: Sendable, Equatable {
        var channel: String
        var payload: String
    }

    /// Reads what the server sent without waiting, and returns the notifications that came.
    func takeNotifications() throws(PostgresError) -> [Notification] {
        guard PQconsumeInput(handle) == 1 else { throw failure(sql: nil) }
        var notifications: [Notification] = []
        while let notify = PQnotifies(handle) {
            notifications.append(
                Notification(
                    channel: String(cString: notify.pointee.relname), payload: String(cString: notify.pointee.extra)))
            PQfreemem(notify)
        }
        return notifications
    }

    // MARK: - COPY

    /// Runs `COPY … FROM STDIN` (`sql`, in the text format), sending the rows `body` writes to
    /// the ``PostgresCopyWriter`` it is given; returns how many rows the server took. If `body`
    /// throws, the copy is abandoned and the server keeps none of its rows.
    @discardableResult
    func copyIn(_ sql: String, _ body: (PostgresCopyWriter) throws -> Void) throws -> Int {
        roundTrips += 1
        guard let started = PQexec(handle, sql) else { throw failure(sql: sql) }
        guard PQresultStatus(started) == PGRES_COPY_IN else {
            _ = try check(started, sql: sql)
            throw PostgresError(sqlState: "", message: "The statement did not start a copy", sql: sql)
        }
        PQclear(started)
        let writer = PostgresCopyWriter(connection: self)
        do {
            try body(writer)
            try writer.flush()
        } catch {
            _ = PQputCopyEnd(handle, "abandoned by the client")
            _ = try? finishCopy(sql: sql)
            throw error
        }
        guard PQputCopyEnd(handle, nil) == 1 else { throw failure(sql: sql) }
        return try finishCopy(sql: sql)?.affectedRows ?? 0
    }

    /// Sends one chunk of copy data (whole rows or not; the server joins them).
    func putCopyData(_ bytes: [UInt8]) throws(PostgresError) {
        let sent = bytes.withUnsafeBufferPointer { buffer in
            buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) { PQputCopyData(handle, $0, Int32(buffer.count)) }
        }
        guard sent == 1 else { throw failure(sql: nil) }
    }

    /// Reads the copy's outcome and whatever follows it, so that the connection takes statements
    /// again; throws the copy's error, if any.
    @discardableResult
    private func finishCopy(sql: String) throws(PostgresError) -> PostgresResult? {
        var outcome: Result<PostgresResult, PostgresError>?
        while let result = PQgetResult(handle) {
            if outcome == nil {
                do throws(PostgresError) { outcome = .success(try check(result, sql: sql)) } catch { outcome = .failure(error) }
            } else {
                PQclear(result)
            }
        }
        updateTransactionState()
        return try outcome?.get()
    }

    // MARK: - Helpers

    private func prepare(_ sql: String, parameterCount: Int) throws(PostgresError) -> String {
        if let name = prepared[sql] { return name }
        let name = "s\(prepared.count)"
        roundTrips += 1
        try check(PQprepare(handle, name, sql, Int32(parameterCount), nil), sql: sql).ignore()
        prepared[sql] = name
        return name
    }

    private func check(_ result: OpaquePointer?, sql: String?) throws(PostgresError) -> PostgresResult {
        guard let result else { throw failure(sql: sql) }
        let status = PQresultStatus(result)
        if status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK || status == PGRES_SINGLE_TUPLE
            || status == PGRES_PIPELINE_SYNC
        {
            if !isPipelining { updateTransactionState() }
            return PostgresResult(result)
        }
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
        let message = String(cString: PQresultErrorMessage(result)).trimmingWhitespace
        PQclear(result)
        if !isPipelining { updateTransactionState() }
        if PQstatus(handle) != CONNECTION_OK { isBroken = true }
        throw PostgresError(sqlState: state, message: message, sql: sql)
    }

    private var isPipelining: Bool { PQpipelineStatus(handle) != PQ_PIPELINE_OFF }

    private func failure(sql: String?) -> PostgresError {
        if PQstatus(handle) != CONNECTION_OK { isBroken = true }
        return PostgresError(sqlState: "", message: String(cString: PQerrorMessage(handle)).trimmingWhitespace, sql: sql)
    }

    private func updateTransactionState() {
        let status = PQtransactionStatus(handle)
        inTransaction = status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Lays out `values` for libpq: texts NUL-terminated in the text format, bytes in the binary
    /// format, all in one buffer that lives through `body`.
    private static func withParameters<R>(
        _ values: [PostgresValue],
        _ body: (Int32, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        if values.isEmpty { return body(0, nil, nil, nil) }
        var buffer: [UInt8] = []
        var offsets: [Int?] = []
        var lengths: [Int32] = []
        var formats: [Int32] = []
        for value in values {
            let start = buffer.count
            if case .bytes(let bytes) = value {
                buffer.append(contentsOf: bytes)
                offsets.append(start)
                lengths.append(Int32(bytes.count))
                formats.append(1)
                continue
            }
            guard let text = value.textFormat else {
                offsets.append(nil)
                lengths.append(0)
                formats.append(0)
                continue
            }
            buffer.append(contentsOf: text.utf8)
            buffer.append(0)
            offsets.append(start)
            lengths.append(Int32(buffer.count - start - 1))
            formats.append(0)
        }
        return buffer.withUnsafeBufferPointer { bytes in
            let base = bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) }
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard let offset, let base else { return nil }
                return base + offset
            }
            return pointers.withUnsafeBufferPointer { pointers in
                lengths.withUnsafeBufferPointer { lengths in
                    formats.withUnsafeBufferPointer { formats in
                        body(Int32(values.count), pointers.baseAddress, lengths.baseAddress, formats.baseAddress)
                    }
                }
            }
        }
    }

    private static func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>?>) -> R) -> R {
        let copies = strings.map { strdup($0) }
        defer {
            for copy in copies { free(copy) }
        }
        let pointers: [UnsafePointer<CChar>?] = copies.map { UnsafePointer($0) } + [nil]
        return pointers.withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}

extension PostgresResult {
    /// Drops a result nobody reads.
    func ignore() {}
}

extension String {
    /// The text without leading and trailing whitespace and newlines (libpq's messages end in one).
    fileprivate var trimmingWhitespace: String {
        var scalars = Substring(self)
        while let last = scalars.last, last.isWhitespace { scalars.removeLast() }
        while let first = scalars.first, first.isWhitespace { scalars.removeFirst() }
        return String(scalars)
    }
}
