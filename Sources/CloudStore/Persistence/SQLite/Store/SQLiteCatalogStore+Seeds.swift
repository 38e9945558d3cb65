extension SQLiteCatalogStore: SeedStorage {
    func insertSeed(_ seed: SeedContent) throws {
        let summary = seed.summary
        let key: [SQLiteValue] = [.text(summary.container.rawValue), .text(summary.name)]
        try write { connection in
            for table in ["seeds", "seed_records", "seed_blobs"] {
                let column = table == "seeds" ? "name" : "seed"
                try connection.statement("DELETE FROM \(table) WHERE container = ? AND \(column) = ?").execute(key)
            }
            try connection.statement(
                """
                INSERT INTO seeds(container, name, created, created_by, scope, owner, selection, record_types, schema, records, blobs,
                    blob_bytes) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """
            ).execute(
                key + [
                    .integer(summary.created), .text(summary.createdBy), .integer(StoredCodes.scopeCode(summary.database.scope)),
                    .text(summary.database.owner), .text(summary.selection), .text(summary.recordTypes.joined(separator: "\n")),
                    .text(seed.schema), .integer(Int64(summary.records)), .integer(Int64(summary.blobs)), .integer(summary.blobBytes),
                ])
            let insertRecord = try connection.statement("INSERT INTO seed_records(container, seed, position, data) VALUES (?, ?, ?, ?)")
            for (position, record) in seed.records.enumerated() {
                try insertRecord.execute(key + [.integer(Int64(position)), .blob(SeedRows.encode(record))])
            }
            let insertBlob = try connection.statement(
                """
                INSERT INTO seed_blobs(container, seed, sha, size, stored, compressed, created, content_type, bytes)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
            for blob in seed.blobs {
                let row = blob.row
                try insertBlob.execute(
                    key + [
                        .text(row.sha), .integer(row.size), .integer(row.stored), .integer(row.compressed ? 1 : 0), .integer(row.created),
                        .text(row.contentType), .blob(blob.bytes),
                    ])
            }
        }
    }

    func seeds(in container: ContainerIdentifier) throws -> [SeedSummary] {
        try read { connection in
            try connection.statement("SELECT \(SeedRows.summaryColumns) FROM seeds WHERE container = ? ORDER BY name").rows(
                [.text(container.rawValue)]
            ) { row in SeedRows.summary(row, container) }
        }
    }

    func seed(named name: String, in container: ContainerIdentifier) throws -> SeedContent? {
        let key: [SQLiteValue] = [.text(container.rawValue), .text(name)]
        return try read { connection -> SeedContent? in
            guard
                let (summary, schema) = try connection.statement(
                    "SELECT \(SeedRows.summaryColumns), schema FROM seeds WHERE container = ? AND name = ?"
                ).firstRow(key, { row in (SeedRows.summary(row, container), row.text(10)) })
            else { return nil }
            let records = try connection.statement("SELECT data FROM seed_records WHERE container = ? AND seed = ? ORDER BY position")
                .rows(key) { row in try SeedRows.decode(row.blob(0), database: summary.database) }
            let blobs = try connection.statement(
                "SELECT sha, size, stored, compressed, created, content_type, bytes FROM seed_blobs WHERE container = ? AND seed = ? ORDER BY sha"
            ).rows(key) { row in
                SeedBlob(
                    row: AssetBlob(
                        sha: row.text(0), size: row.integer(1), stored: row.integer(2), compressed: row.integer(3) != 0,
                        created: row.integer(4), contentType: row.text(5)),
                    bytes: row.blob(6))
            }
            return SeedContent(summary: summary, schema: schema, records: records, blobs: blobs)
        }
    }

    func deleteSeed(named name: String, in container: ContainerIdentifier) throws -> Bool {
        let key: [SQLiteValue] = [.text(container.rawValue), .text(name)]
        return try write { connection in
            try connection.statement("DELETE FROM seeds WHERE container = ? AND name = ?").execute(key)
            let deleted = connection.changes > 0
            try connection.statement("DELETE FROM seed_records WHERE container = ? AND seed = ?").execute(key)
            try connection.statement("DELETE FROM seed_blobs WHERE container = ? AND seed = ?").execute(key)
            return deleted
        }
    }

    func personalFields(in container: ContainerIdentifier) throws -> PersonalFields {
        try read { connection in
            PersonalFields(
                Set(
                    try connection.statement("SELECT record_type, field FROM personal_fields WHERE container = ?").rows(
                        [.text(container.rawValue)]
                    ) { row in PersonalField(recordType: row.text(0), field: row.text(1)) }))
        }
    }

    func setPersonal(_ personal: Bool, _ field: PersonalField, in container: ContainerIdentifier) throws -> Bool {
        try write { connection in
            try connection.statement(
                personal
                    ? "INSERT OR IGNORE INTO personal_fields(container, record_type, field) VALUES (?, ?, ?)"
                    : "DELETE FROM personal_fields WHERE container = ? AND record_type = ? AND field = ?"
            ).execute([.text(container.rawValue), .text(field.recordType), .text(field.field)])
            return connection.changes > 0
        }
    }
}
