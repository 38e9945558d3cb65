extension PostgresCatalogStore: SeedStorage {
    func insertSeed(_ seed: SeedContent) throws {
        let summary = seed.summary
        let key: [PostgresValue] = [.text(summary.container.rawValue), .text(summary.name)]
        try write { connection in
            for table in ["seeds", "seed_records", "seed_blobs"] {
                let column = table == "seeds" ? "name" : "seed"
                try connection.execute("DELETE FROM catalog.\(table) WHERE container = $1 AND \(column) = $2", key)
            }
            try connection.execute(
                """
                INSERT INTO catalog.seeds(container, name, created, created_by, scope, owner, selection, record_types, schema, records,
                    blobs, blob_bytes) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)
                """,
                key + [
                    .integer(summary.created), .text(summary.createdBy), .integer(StoredCodes.scopeCode(summary.database.scope)),
                    .text(summary.database.owner), .text(summary.selection), .text(summary.recordTypes.joined(separator: "\n")),
                    .text(seed.schema), .integer(summary.records), .integer(summary.blobs), .integer(summary.blobBytes),
                ])
            for (position, record) in seed.records.enumerated() {
                try connection.execute(
                    "INSERT INTO catalog.seed_records(container, seed, position, data) VALUES ($1, $2, $3, $4)",
                    key + [.integer(position), .bytes(SeedRows.encode(record))])
            }
            for blob in seed.blobs {
                let row = blob.row
                try connection.execute(
                    """
                    INSERT INTO catalog.seed_blobs(container, seed, sha, size, stored, compressed, created, content_type, bytes)
                    VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)
                    """,
                    key + [
                        .text(row.sha), .integer(row.size), .integer(row.stored), .bool(row.compressed), .integer(row.created),
                        .text(row.contentType), .bytes(blob.bytes),
                    ])
            }
        }
    }

    func seeds(in container: ContainerIdentifier) throws -> [SeedSummary] {
        try read { connection in
            try connection.execute(
                "SELECT \(SeedRows.summaryColumns) FROM catalog.seeds WHERE container = $1 ORDER BY name", [.text(container.rawValue)]
            ).map { row in SeedRows.summary(row, container) }
        }
    }

    func seed(named name: String, in container: ContainerIdentifier) throws -> SeedContent? {
        let key: [PostgresValue] = [.text(container.rawValue), .text(name)]
        // One snapshot for the three reads: a seed replaced meanwhile is read whole, old or new.
        return try write { connection -> SeedContent? in
            guard
                let (summary, schema) = try connection.execute(
                    "SELECT \(SeedRows.summaryColumns), schema FROM catalog.seeds WHERE container = $1 AND name = $2", key
                ).first({ row in (SeedRows.summary(row, container), row.text(10)) })
            else { return nil }
            let records = try connection.execute(
                "SELECT data FROM catalog.seed_records WHERE container = $1 AND seed = $2 ORDER BY position", key
            ).map { row in try SeedRows.decode(row.blob(0), database: summary.database) }
            let blobs = try connection.execute(
                """
                SELECT sha, size, stored, compressed, created, content_type, bytes FROM catalog.seed_blobs
                WHERE container = $1 AND seed = $2 ORDER BY sha
                """, key
            ).map { row in
                SeedBlob(
                    row: AssetBlob(
                        sha: row.text(0), size: row.integer(1), stored: row.integer(2), compressed: row.bool(3), created: row.integer(4),
                        contentType: row.text(5)),
                    bytes: row.blob(6))
            }
            return SeedContent(summary: summary, schema: schema, records: records, blobs: blobs)
        }
    }

    func deleteSeed(named name: String, in container: ContainerIdentifier) throws -> Bool {
        let key: [PostgresValue] = [.text(container.rawValue), .text(name)]
        return try write { connection in
            let deleted = try connection.execute("DELETE FROM catalog.seeds WHERE container = $1 AND name = $2", key).affectedRows > 0
            try connection.execute("DELETE FROM catalog.seed_records WHERE container = $1 AND seed = $2", key)
            try connection.execute("DELETE FROM catalog.seed_blobs WHERE container = $1 AND seed = $2", key)
            return deleted
        }
    }

    func personalFields(in container: ContainerIdentifier) throws -> PersonalFields {
        try read { connection in
            PersonalFields(
                Set(
                    try connection.execute(
                        "SELECT record_type, field FROM catalog.personal_fields WHERE container = $1", [.text(container.rawValue)]
                    ).map { row in PersonalField(recordType: row.text(0), field: row.text(1)) }))
        }
    }

    func setPersonal(_ personal: Bool, _ field: PersonalField, in container: ContainerIdentifier) throws -> Bool {
        try write { connection in
            try connection.execute(
                personal
                    ? "INSERT INTO catalog.personal_fields(container, record_type, field) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING"
                    : "DELETE FROM catalog.personal_fields WHERE container = $1 AND record_type = $2 AND field = $3",
                [.text(container.rawValue), .text(field.recordType), .text(field.field)]
            ).affectedRows > 0
        }
    }
}
