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

    /// Copies `table` from the SQLite file on `sqlite` (inside the caller's read transaction)
    /// into `schema` (quoted), each row passed through `transform` first.
    func copy(
        _ table: MigrationTable, from sqlite: SQLiteConnection, into schema: String, scope: String,
        transform: (inout [MigrationValue]) throws -> Void = { _ in }
    ) throws {
        var sent = MigrationChecksum()
        try copyStatement(table.copyStatement(schema: schema), what: "the table \(table.name)") { writer in
            try sqlite.statement(table.sourceQuery).each { row in
                var values = table.columns.indices.map { MigrationValue(row, $0, as: table.columns[$0].sourceKind) }
                try transform(&values)
                sent.add(values)
                for value in values { value.write(to: writer) }
                try writer.endRow()
                return true
            }
        }
        copied.append(Copied(scope: scope, table: table, schema: schema, sent: sent))
    }

    /// Copies rows made by the caller into `table` in `schema` (quoted).
    func copy(_ table: MigrationTable, rows: [[MigrationValue]], into schema: String, scope: String) throws {
        var sent = MigrationChecksum()
        try copyStatement(table.copyStatement(schema: schema), what: "the table \(table.name)") { writer in
            for values in rows {
                sent.add(values)
                for value in values { value.write(to: writer) }
                try writer.endRow()
            }
        }
        copied.append(Copied(scope: scope, table: table, schema: schema, sent: sent))
    }

    /// Notes rows written otherwise than by COPY (an UPDATE of a row the migrations made), to be
    /// read back and compared with the others.
    func expect(_ table: MigrationTable, rows: [[MigrationValue]], in schema: String, scope: String) {
        var sent = MigrationChecksum()
        for values in rows { sent.add(values) }
        expect(table, sent: sent, in: schema, scope: scope)
    }

    /// Notes rows sent by the caller's own COPY, by their checksum.
    func expect(_ table: MigrationTable, sent: MigrationChecksum, in schema: String, scope: String) {
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
                    received.add(table.columns.indices.map { MigrationValue(row, $0, as: table.columns[$0].kind) })
                }
            }
            try connection.executeScript("CLOSE migration_read_back")
        } catch {
            throw CloudStoreError.internalError("Reading the table \(table.name) back failed: \(error.message)")
        }
        return received
    }
}
