/// Copies tables into one PostgreSQL transaction and keeps, for each, the checksum of the rows
/// sent, so that ``verify()`` can read every table back and compare before anything commits.
final class MigrationCopier {
    /// A table copied, with what was sent.
    struct Copied {
        var scope: String
        var table: MigrationTable
        /// The target schema, quoted.
        var schema: String
        var sent: MigrationChecksum
    }

    let connection: PostgresConnection
    private(set) var copied: [Copied] = []

    init(connection: PostgresConnection) {
        self.connection = connection
    }

    /// The rows of one table's COPY: each is added to the checksum of what was sent, then written.
    struct Rows {
        private let writer: PostgresCopyWriter
        private(set) var sent = MigrationChecksum()

        init(writer: PostgresCopyWriter) {
            self.writer = writer
        }

        /// Sends one row: `values`, in the table's columns, then `extra`, in the COPY's extra
        /// columns, which are worked out from the others and so left out of the checksum.
        mutating func send(_ values: [MigrationValue], extra: [PostgresValue] = []) throws {
            sent.add(values)
            for value in values { value.write(to: writer) }
            for value in extra { writer.value(value) }
            try writer.endRow()
        }
    }

    /// Copies into `table` in `schema` (quoted) the rows `body` sends, naming `extraColumns`
    /// after the table's own; they are read back and compared by ``verify()``.
    func copy(
        _ table: MigrationTable, into schema: String, scope: String, extraColumns: [String] = [], _ body: (inout Rows) throws -> Void
    ) throws {
        var sent = MigrationChecksum()
        try copyStatement(table.copyStatement(schema: schema, extra: extraColumns), what: "the table \(table.name)") { writer in
            var rows = Rows(writer: writer)
            try body(&rows)
            sent = rows.sent
        }
        copied.append(Copied(scope: scope, table: table, schema: schema, sent: sent))
    }

    /// Copies `table` from the SQLite file on `sqlite` (inside the caller's read transaction)
    /// into `schema` (quoted), each row passed through `transform` first.
    func copy(
        _ table: MigrationTable, from sqlite: SQLiteConnection, into schema: String, scope: String,
        transform: (inout [MigrationValue]) throws -> Void = { _ in }
    ) throws {
        try copy(table, into: schema, scope: scope) { rows in
            try sqlite.statement(table.sourceQuery).each { row in
                var values = table.sourceValues(of: row)
                try transform(&values)
                try rows.send(values)
                return true
            }
        }
    }

    /// Copies rows made by the caller into `table` in `schema` (quoted).
    func copy(_ table: MigrationTable, rows: [[MigrationValue]], into schema: String, scope: String) throws {
        try copy(table, into: schema, scope: scope) { sender in
            for values in rows { try sender.send(values) }
        }
    }

    /// Notes rows written otherwise than by COPY (an UPDATE of a row the migrations made), to be
    /// read back and compared with the others.
    func expect(_ table: MigrationTable, rows: [[MigrationValue]], in schema: String, scope: String) {
        var sent = MigrationChecksum()
        for values in rows { sent.add(values) }
        copied.append(Copied(scope: scope, table: table, schema: schema, sent: sent))
    }

    /// Runs one COPY, naming the table in a failure rather than the statement.
    func copyStatement(_ sql: String, what: String, _ body: (PostgresCopyWriter) throws -> Void) throws {
        do {
            try connection.copyIn(sql, body)
        } catch let error as PostgresError {
            throw CloudStoreError.internalError("Copying \(what) failed: \(error.message)")
        }
    }

    // MARK: - Verifying

    /// Reads every copied table back, in key order, and compares its row count and checksum
    /// with what was sent.
    func verify() throws -> [StoreMigrationReport.Table] {
        try copied.map { copied in
            let received = try readBack(copied.table, schema: copied.schema)
            return StoreMigrationReport.Table(
                scope: copied.scope, name: copied.table.name, sourceRows: copied.sent.rows, targetRows: received.rows,
                sourceChecksum: copied.sent.digest, targetChecksum: received.digest)
        }
    }

    /// The checksum of `table`'s rows in `schema` as PostgreSQL holds them, read through a
    /// cursor so that a large table never sits in memory whole.
    private func readBack(_ table: MigrationTable, schema: String) throws -> MigrationChecksum {
        var received = MigrationChecksum()
        do {
            try connection.executeScript("DECLARE migration_read_back NO SCROLL CURSOR FOR \(table.readBackQuery(schema: schema))")
            while true {
                let batch = try connection.execute("FETCH 5000 FROM migration_read_back")
                guard batch.count > 0 else { break }
                for index in 0..<batch.count {
                    let row = batch[index]
                    received.add(table.readBackValues(of: row))
                }
            }
            try connection.executeScript("CLOSE migration_read_back")
        } catch {
            throw CloudStoreError.internalError("Reading the table \(table.name) back failed: \(error.message)")
        }
        return received
    }
}
