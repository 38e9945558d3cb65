extension PostgresEnvironmentSession {
    // MARK: - Subscriptions and queued notifications

    func subscriptions(in database: DatabaseID) throws -> [(user: String, subscription: Subscription)] {
        try connection.execute(
            "SELECT \"user\", body FROM \(table("subscriptions")) WHERE scope = $1 AND owner = $2 ORDER BY created, \"user\" COLLATE \"C\", id COLLATE \"C\"",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]
        ).map { row in (row.text(0), try SubscriptionCodec.decodeSubscription(row.blob(1))) }
    }

    func allSubscriptions() throws -> [(database: DatabaseID, user: String, subscription: Subscription)] {
        try connection.execute(
            "SELECT scope, owner, \"user\", body FROM \(table("subscriptions")) ORDER BY scope, owner COLLATE \"C\", \"user\" COLLATE \"C\", id COLLATE \"C\""
        ).map { row in
            (Self.database(scope: row.integer(0), owner: row.text(1)), row.text(2), try SubscriptionCodec.decodeSubscription(row.blob(3)))
        }
    }

    func subscriptions(of user: String, in database: DatabaseID) throws -> [Subscription] {
        try connection.execute(
            "SELECT body FROM \(table("subscriptions")) WHERE scope = $1 AND owner = $2 AND \"user\" = $3 ORDER BY id COLLATE \"C\"",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user)]
        ).map { try SubscriptionCodec.decodeSubscription($0.blob(0)) }
    }

    func saveSubscription(_ subscription: Subscription, of user: String, in database: DatabaseID, at time: Int64) throws {
        try connection.execute(
            """
            INSERT INTO \(table("subscriptions"))(scope, owner, "user", id, created, body) VALUES ($1, $2, $3, $4, $5, $6)
            ON CONFLICT (scope, owner, "user", id) DO UPDATE SET body = excluded.body
            """,
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user), .text(subscription.subscriptionID),
             .integer(time), .bytes(SubscriptionCodec.encode(subscription))])
    }

    func deleteSubscription(_ id: String, of user: String, in database: DatabaseID) throws -> Bool {
        try connection.execute(
            "DELETE FROM \(table("subscriptions")) WHERE scope = $1 AND owner = $2 AND \"user\" = $3 AND id = $4",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user), .text(id)]
        ).affectedRows > 0
    }

    func enqueue(_ notification: QueuedNotification, for tokens: [String], expires: Int64) throws {
        guard !tokens.isEmpty else { return }
        try connection.execute(
            "INSERT INTO \(table("notifications"))(token, expires, body) SELECT t, $2, $3 FROM unnest($1::text[]) AS t",
            [.textArray(tokens), .integer(expires), .bytes(SubscriptionCodec.encode(notification))])
    }

    func oldestNotification(for token: String, now: Int64) throws -> StoredNotification? {
        try connection.execute(
            "SELECT \(StoredNotification.columns) FROM \(table("notifications")) WHERE token = $1 AND expires > $2 ORDER BY id LIMIT 1",
            [.text(token), .integer(now)]
        ).first(StoredNotification.init(row:))
    }

    func queuedNotificationCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for (token, count) in try connection.execute("SELECT token, count(*) FROM \(table("notifications")) GROUP BY token").map({ ($0.text(0), $0.integer(1)) }) {
            counts[token] = Int(count)
        }
        return counts
    }

    func removeNotifications(_ keys: [Int64], expiredBefore now: Int64) throws -> Int {
        // Only the poll that deleted an entry hands it out: with polls in several processes,
        // a row another poll took first is not counted (nor delivered) here.
        let removed = try connection.execute(
            "DELETE FROM \(table("notifications")) WHERE id = ANY($1::bigint[])", [.integerArray(keys)]).affectedRows
        try connection.execute("DELETE FROM \(table("notifications")) WHERE expires <= $1", [.integer(now)])
        return removed
    }

    func claimNotifications(for tokens: [String], now: Int64) throws -> [StoredNotification] {
        guard !tokens.isEmpty else { return [] }
        // Each token's oldest entry that no other transaction holds: a poll in another process
        // claiming the same token at the same moment takes the next entry, never this one. The
        // row lock comes before the limit, so a skipped entry does not use up a token's one.
        let claimed = try connection.execute(
            """
            DELETE FROM \(table("notifications")) WHERE id IN (
                SELECT oldest.id FROM unnest($1::text[]) AS t(token) CROSS JOIN LATERAL (
                    SELECT id FROM \(table("notifications")) n WHERE n.token = t.token AND n.expires > $2
                    ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) AS oldest)
            RETURNING \(StoredNotification.columns)
            """,
            [.textArray(Array(Set(tokens))), .integer(now)]
        ).map(StoredNotification.init(row:))
        // Expired entries another transaction holds are left to it, rather than waited for.
        try connection.execute(
            """
            DELETE FROM \(table("notifications")) WHERE id IN (
                SELECT id FROM \(table("notifications")) WHERE expires <= $1 FOR UPDATE SKIP LOCKED)
            """,
            [.integer(now)])
        return claimed.sorted { $0.key < $1.key }
    }

    func unclaimNotifications(_ entries: [StoredNotification]) throws {
        // The same key puts each back in its place; one already back stays as it is.
        for entry in entries {
            try connection.execute(
                "INSERT INTO \(table("notifications"))(id, token, expires, body) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING",
                [.integer(entry.key), .text(entry.token), .integer(entry.expires), .bytes(SubscriptionCodec.encode(entry.notification))])
        }
    }

    func removeExpiredNotifications(before now: Int64) throws -> Int {
        try connection.execute("DELETE FROM \(table("notifications")) WHERE expires <= $1", [.integer(now)]).affectedRows
    }

    // MARK: - Asset blobs

    func assetBlob(_ sha: String) throws -> AssetBlob? {
        try connection.execute(
            "SELECT sha, size, stored, compressed, created, type FROM \(table("asset_blobs")) WHERE sha = $1", [.text(sha)]
        ).first {
            AssetBlob(sha: $0.text(0), size: $0.integer(1), stored: $0.integer(2), compressed: $0.bool(3), created: $0.integer(4), contentType: $0.text(5))
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
            [.text(blob.sha), .integer(blob.size), .integer(blob.stored), .bool(blob.compressed), .integer(blob.created), .text(blob.contentType)]
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
            RETURNING sha, size, stored, compressed, created
            """,
            [.integer(time)]
        ).map { AssetBlob(sha: $0.text(0), size: $0.integer(1), stored: $0.integer(2), compressed: $0.bool(3), created: $0.integer(4)) }
    }
}
