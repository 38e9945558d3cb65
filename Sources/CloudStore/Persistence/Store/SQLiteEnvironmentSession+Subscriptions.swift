extension SQLiteEnvironmentSession {
    // MARK: - Subscriptions and queued notifications

    func subscriptions(in database: DatabaseID) throws -> [(user: String, subscription: Subscription)] {
        if let known = knownSubscriptions(in: database) { return known }
        let loaded = try connection.statement("SELECT user, body FROM subscriptions WHERE scope = ? AND owner = ? ORDER BY created, user, id")
            .rows([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner)]) { row in
                (row.text(0), try SubscriptionCodec.decodeSubscription(row.blob(1)))
            }
        found(loaded, in: database)
        return loaded
    }

    func allSubscriptions() throws -> [(database: DatabaseID, user: String, subscription: Subscription)] {
        try connection.statement("SELECT scope, owner, user, body FROM subscriptions ORDER BY scope, owner, user, id").rows([]) { row in
            let scope = StoredCodes.scope(ofCode: row.integer(0))
            let database = scope == .public ? DatabaseID.public : DatabaseID(scope: scope, owner: row.text(1))
            return (database, row.text(2), try SubscriptionCodec.decodeSubscription(row.blob(3)))
        }
    }

    func subscriptions(of user: String, in database: DatabaseID) throws -> [Subscription] {
        try connection.statement("SELECT body FROM subscriptions WHERE scope = ? AND owner = ? AND user = ? ORDER BY id")
            .rows([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user)]) { row in
                try SubscriptionCodec.decodeSubscription(row.blob(0))
            }
    }

    func saveSubscription(_ subscription: Subscription, of user: String, in database: DatabaseID, at time: Int64) throws {
        rewritesSubscriptions()
        try connection.statement(
            """
            INSERT INTO subscriptions(scope, owner, user, id, created, body) VALUES (?, ?, ?, ?, ?, ?)
            ON CONFLICT(scope, owner, user, id) DO UPDATE SET body = excluded.body
            """
        ).execute([
            .integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user), .text(subscription.subscriptionID),
            .integer(time), .blob(SubscriptionCodec.encode(subscription)),
        ])
    }

    func deleteSubscription(_ id: String, of user: String, in database: DatabaseID) throws -> Bool {
        rewritesSubscriptions()
        try connection.statement("DELETE FROM subscriptions WHERE scope = ? AND owner = ? AND user = ? AND id = ?")
            .execute([.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user), .text(id)])
        return connection.changes > 0
    }

    func enqueue(_ notification: QueuedNotification, for tokens: [String], expires: Int64) throws {
        guard !tokens.isEmpty else { return }
        let body = SQLiteValue.blob(SubscriptionCodec.encode(notification))
        let insert = try connection.statement("INSERT INTO notifications(token, expires, body) VALUES (?, ?, ?)")
        for token in tokens { try insert.execute([.text(token), .integer(expires), body]) }
    }

    func oldestNotification(for token: String, now: Int64) throws -> StoredNotification? {
        try connection.statement("SELECT \(StoredNotification.columns) FROM notifications WHERE token = ? AND expires > ? ORDER BY id LIMIT 1")
            .firstRow([.text(token), .integer(now)], StoredNotification.init(row:))
    }

    func queuedNotificationCounts() throws -> [String: Int] {
        var counts: [String: Int] = [:]
        let rows = try connection.statement("SELECT token, count(*) FROM notifications GROUP BY token").rows([]) { ($0.text(0), $0.integer(1)) }
        for (token, count) in rows { counts[token] = Int(count) }
        return counts
    }

    func removeNotifications(_ keys: [Int64], expiredBefore now: Int64) throws -> Int {
        let delete = try connection.statement("DELETE FROM notifications WHERE id = ?")
        var removed = 0
        for key in keys {
            try delete.execute([.integer(key)])
            removed += connection.changes
        }
        try connection.statement("DELETE FROM notifications WHERE expires <= ?").execute([.integer(now)])
        return removed
    }

    func claimNotifications(for tokens: [String], now: Int64) throws -> [StoredNotification] {
        // One writer: what this transaction reads, no other takes before it commits.
        let delete = try connection.statement("DELETE FROM notifications WHERE id = ?")
        var claimed: [StoredNotification] = []
        for token in Set(tokens) {
            guard let oldest = try oldestNotification(for: token, now: now) else { continue }
            try delete.execute([.integer(oldest.key)])
            claimed.append(oldest)
        }
        try connection.statement("DELETE FROM notifications WHERE expires <= ?").execute([.integer(now)])
        return claimed
    }

    func unclaimNotifications(_ entries: [StoredNotification]) throws {
        // The same key puts each back in its place; one already back stays as it is.
        let insert = try connection.statement("INSERT OR IGNORE INTO notifications(id, token, expires, body) VALUES (?, ?, ?, ?)")
        for entry in entries {
            try insert.execute([.integer(entry.key), .text(entry.token), .integer(entry.expires), .blob(SubscriptionCodec.encode(entry.notification))])
        }
    }

    func removeExpiredNotifications(before now: Int64) throws -> Int {
        try connection.statement("DELETE FROM notifications WHERE expires <= ?").execute([.integer(now)])
        return connection.changes
    }
}
