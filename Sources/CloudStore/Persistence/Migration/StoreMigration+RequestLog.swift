extension StoreMigration {
    /// Copies the request log: its calls, which SQLite keeps in blocks, as a row each, and its
    /// usage minutes, whose latency histograms become PostgreSQL's arrays of packed buckets.
    func copyRequestLog(_ source: SourceStore, _ copier: MigrationCopier) throws {
        guard let path = source.requestLogPath else { return }
        let schema = PostgresRequestLogMigrations.schema
        try SourceStore.read(path) { sqlite in
            let everything = RequestLogFilter(limit: Int.max)
            try copier.copy(MigrationTables.requests, into: schema, scope: "request log") { rows in
                try sqlite.statement("SELECT first_id, entries FROM request_blocks ORDER BY first_id").each { row in
                    let entries = try RequestLogBlock.entries(
                        firstID: row.integer(0), encoded: row.blob(1), matching: everything, limit: Int.max)
                    // A block's entries come newest first.
                    for entry in entries.reversed() {
                        try rows.send([
                            .integer(entry.id), .integer(entry.time), .text(entry.container), .text(entry.environment),
                            .text(entry.database),
                            .text(entry.operation), entry.user.map(MigrationValue.text) ?? .null, .text(entry.clientAddress),
                            .integer(Int64(entry.status)), entry.serverErrorCode.map(MigrationValue.text) ?? .null,
                            .integer(entry.durationMicroseconds), .integer(entry.bytesIn), .integer(entry.bytesOut), .text(entry.requestID),
                            entry.reason.map(MigrationValue.text) ?? .null, entry.credential.map { .text($0.packed) } ?? .null,
                            entry.userAgent.map(MigrationValue.text) ?? .null, entry.recordTypes.map(MigrationValue.text) ?? .null,
                            entry.zones.map(MigrationValue.text) ?? .null, entry.results.map { .integer(Int64($0)) } ?? .null,
                            entry.packedResultErrors.map(MigrationValue.text) ?? .null, .integer(Int64(entry.failedResults)),
                            entry.packedTrace.map(MigrationValue.text) ?? .null, entry.schemaGap.map { .text($0.packed) } ?? .null,
                        ])
                    }
                    return true
                }
            }
            try continueNumbering("requests", "id", in: schema, after: 0, on: copier.connection)

            try copier.copy(MigrationTables.usageMinutes, from: sqlite, into: schema, scope: "request log") { values in
                guard case .bytes(let latency) = values[7] else { return }
                values[7] = .text(PostgresRequestLogStore.packed(LatencyHistogram(encoded: latency)))
            }
        }
    }
}
