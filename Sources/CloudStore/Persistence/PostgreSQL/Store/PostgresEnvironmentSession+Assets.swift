extension PostgresEnvironmentSession {
    // MARK: - Asset blobs

    func assetBlob(_ sha: String) throws -> AssetBlob? {
        try connection.execute(
            "SELECT sha, size, stored, compressed, created, type FROM \(table("asset_blobs")) WHERE sha = $1", [.text(sha)]
        ).first {
            AssetBlob(
                sha: $0.text(0), size: $0.integer(1), stored: $0.integer(2), compressed: $0.bool(3), created: $0.integer(4),
                contentType: $0.text(5))
        }
    }

    func insertAssetBlob(_ blob: AssetBlob) throws -> Bool {
        // Inserted, or uploaded again: its new receipt keeps it from collection as long as a first one would.
        let inserted = try connection.execute(
            """
            INSERT INTO \(table("asset_blobs"))(sha, size, stored, compressed, created, type) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (sha) DO UPDATE SET created = greatest(asset_blobs.created, excluded.created)
            RETURNING xmax = 0
            """,
            [
                .text(blob.sha), .integer(blob.size), .integer(blob.stored), .bool(blob.compressed), .integer(blob.created),
                .text(blob.contentType),
            ]
        ).first { $0.bool(0) }
        return inserted ?? false
    }

    func insertUsedUploadTicket(_ id: String, expires: Int64) throws -> Bool {
        let inserted = try connection.execute(
            "INSERT INTO \(table("asset_uploads"))(ticket, expires) VALUES ($1, $2) ON CONFLICT (ticket) DO NOTHING RETURNING 1",
            [.text(id), .integer(expires)])
        return inserted.count == 1
    }

    func removeUsedUploadTickets(expiredBefore time: Int64) throws {
        _ = try connection.execute("DELETE FROM \(table("asset_uploads")) WHERE expires < $1", [.integer(time)])
    }

    func removeUnreferencedAssetBlobs(createdBefore time: Int64) throws -> [AssetBlob] {
        try connection.execute(
            """
            DELETE FROM \(table("asset_blobs")) b WHERE created < $1 AND NOT EXISTS (SELECT 1 FROM \(table("asset_refs")) r WHERE r.sha = b.sha)
                AND NOT EXISTS (SELECT 1 FROM \(table("history_assets")) h WHERE h.sha = b.sha)
            RETURNING sha, size, stored, compressed, created
            """,
            [.integer(time)]
        ).map { AssetBlob(sha: $0.text(0), size: $0.integer(1), stored: $0.integer(2), compressed: $0.bool(3), created: $0.integer(4)) }
    }
}
