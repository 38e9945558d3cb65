extension SQLiteEnvironmentSession {
    // MARK: - Asset blobs and the records holding them

    func assetBlob(_ sha: String) throws -> AssetBlob? {
        try connection.statement("SELECT sha, size, stored, compressed, created, type FROM asset_blobs WHERE sha = ?").firstRow([.text(sha)]
        ) {
            AssetBlob(
                sha: $0.text(0), size: $0.integer(1), stored: $0.integer(2), compressed: $0.integer(3) != 0, created: $0.integer(4),
                contentType: $0.text(5))
        }
    }

    func insertAssetBlob(_ blob: AssetBlob) throws -> Bool {
        try connection.statement(
            "INSERT OR IGNORE INTO asset_blobs(sha, size, stored, compressed, created, type) VALUES (?, ?, ?, ?, ?, ?)"
        )
        .execute([
            .text(blob.sha), .integer(blob.size), .integer(blob.stored), .integer(blob.compressed ? 1 : 0), .integer(blob.created),
            .text(blob.contentType),
        ])
        guard connection.changes == 0 else { return true }
        // Uploaded again: its new receipt keeps it from collection as long as a first one would.
        try connection.statement("UPDATE asset_blobs SET created = max(created, ?) WHERE sha = ?").execute([
            .integer(blob.created), .text(blob.sha),
        ])
        return false
    }

    func removeUnreferencedAssetBlobs(createdBefore time: Int64) throws -> [AssetBlob] {
        let doomed = try connection.statement(
            """
            SELECT sha, size, stored, compressed, created FROM asset_blobs b
            WHERE created < ? AND NOT EXISTS (SELECT 1 FROM asset_refs r WHERE r.sha = b.sha)
                AND NOT EXISTS (SELECT 1 FROM history_assets h WHERE h.sha = b.sha)
            """
        ).rows([.integer(time)]) {
            AssetBlob(sha: $0.text(0), size: $0.integer(1), stored: $0.integer(2), compressed: $0.integer(3) != 0, created: $0.integer(4))
        }
        let delete = try connection.statement("DELETE FROM asset_blobs WHERE sha = ?")
        for blob in doomed { try delete.execute([.text(blob.sha)]) }
        return doomed
    }

    func insertUsedUploadTicket(_ id: String, expires: Int64) throws -> Bool {
        try connection.statement("INSERT OR IGNORE INTO asset_uploads(ticket, expires) VALUES (?, ?)").execute([
            .text(id), .integer(expires),
        ])
        return connection.changes == 1
    }

    func removeUsedUploadTickets(expiredBefore time: Int64) throws {
        try connection.statement("DELETE FROM asset_uploads WHERE expires < ?").execute([.integer(time)])
    }

    /// Bytes of the blobs on disk, counted with the records' toward the storage quota.
    func assetBytes() throws -> Int64 {
        try connection.statement("SELECT coalesce(sum(stored), 0) FROM asset_blobs").scalarInteger() ?? 0
    }

    /// Records which blobs a stored record holds.
    func insertAssetReferences(key: Int64, fields: [String: FieldValue]) throws {
        let hashes = HistoryAssetRows.hashes(of: fields)
        guard !hashes.isEmpty else { return }
        let insert = try connection.statement("INSERT OR IGNORE INTO asset_refs(rid, sha) VALUES (?, ?)")
        for sha in hashes { try insert.execute([.integer(key), .text(sha)]) }
    }

    /// Forgets which blobs a record held.
    func deleteAssetReferences(key: Int64) throws {
        try connection.statement("DELETE FROM asset_refs WHERE rid = ?").execute([.integer(key)])
    }
}
