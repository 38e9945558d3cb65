extension SQLiteEnvironmentSession {
    // MARK: - Subscriptions and queued notifications

    func subscriptions(in database: DatabaseID) throws -> [(user: String, subscription: Subscription)] {
        if let known = knownSubscriptions(in: database) { return known }
        let loaded = try connection.statement(
            "SELECT user, body FROM subscriptions WHERE scope = ? AND owner = ? ORDER BY created, user, id"
        )
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

    func subscriptionFirings() throws -> [SubscriptionFiring] {
        try connection.statement("SELECT scope, owner, user, id, last_fired, queued FROM subscriptions WHERE last_fired IS NOT NULL")
            .rows([]) { row in
                let scope = StoredCodes.scope(ofCode: row.integer(0))
                return SubscriptionFiring(
                    database: scope == .public ? DatabaseID.public : DatabaseID(scope: scope, owner: row.text(1)), user: row.text(2),
                    id: row.text(3), lastFired: row.integer(4), queued: row.integer(5))
            }
    }

    func noteSubscriptionFired(_ id: String, of user: String, in database: DatabaseID, at time: Int64, queued: Int) throws {
        // Not a change of the subscription itself: the cache of subscriptions stays.
        try connection.statement(
            "UPDATE subscriptions SET last_fired = ?, queued = queued + ? WHERE scope = ? AND owner = ? AND user = ? AND id = ?"
        ).execute([
            .integer(time), .integer(Int64(queued)), .integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user),
            .text(id),
        ])
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

    func enqueue(_ notification: QueuedNotification, expires: Int64, subject: String?) throws {
        try connection.statement(
            "INSERT INTO notifications(user, created, expires, body, subscription, subject) VALUES (?, ?, ?, ?, ?, ?)"
        ).execute([
            .text(notification.userRecordName), .integer(notification.created), .integer(expires),
            .blob(SubscriptionCodec.encode(notification)), .text(notification.subscriptionID), subject.map { .text($0) } ?? .null,
        ])
    }

    func notificationTrails(of user: String, createdAt time: Int64) throws -> [NotificationTrail] {
        let handovers = try connection.statement(
            "SELECT \(NotificationHandover.columns) FROM notification_deliveries WHERE id = ? ORDER BY at, token")
        return try connection.statement(
            """
            SELECT \(NotificationTrail.queuedColumns) FROM notifications WHERE user = ?1 AND created = ?2
            UNION ALL
            SELECT \(NotificationTrail.removedColumns) FROM notification_outcomes WHERE user = ?1 AND created = ?2
            ORDER BY 1
            """
        ).rows([.text(user), .integer(time)]) { row in
            try NotificationTrail(row: row, user: user) { key in try handovers.rows([.integer(key)]) { NotificationHandover(row: $0) } }
        }
    }

    /// The entries of a token's queue not handed to it, oldest first: past its cursor, before
    /// which every entry was handed to it, so that a poll does not step over what it took today.
    private static let pending = """
        FROM notifications n WHERE user = ?1 AND created >= ?2 AND expires > ?3
        AND id >= coalesce((SELECT next_id FROM notification_cursors c WHERE c.token = ?4 AND c.user = ?1 AND c.since = ?2), 0)
        AND NOT EXISTS (SELECT 1 FROM notification_deliveries d WHERE d.token = ?4 AND d.id = n.id)
        """

    private static func pendingArguments(_ queue: PushTokenQueue, now: Int64) -> [SQLiteValue] {
        [.text(queue.user), .integer(queue.since), .integer(now), .text(queue.token)]
    }

    func oldestNotification(for queue: PushTokenQueue, now: Int64) throws -> StoredNotification? {
        try connection.statement("SELECT \(StoredNotification.columns) \(Self.pending) ORDER BY id LIMIT 1")
            .firstRow(Self.pendingArguments(queue, now: now)) { try StoredNotification(row: $0, token: queue.token) }
    }

    func pendingNotifications(for queue: PushTokenQueue, now: Int64, limit: Int) throws -> [StoredNotification] {
        var arguments = Self.pendingArguments(queue, now: now)
        arguments.append(.integer(Int64(limit)))
        return try connection.statement("SELECT \(StoredNotification.columns) \(Self.pending) ORDER BY id LIMIT ?5")
            .rows(arguments) { try StoredNotification(row: $0, token: queue.token) }
    }

    func queuedNotificationCount(for queue: PushTokenQueue, now: Int64) throws -> Int {
        Int(try connection.statement("SELECT count(*) \(Self.pending)").scalarInteger(Self.pendingArguments(queue, now: now)) ?? 0)
    }

    func queuedNotificationRowCount() throws -> Int {
        Int(try connection.statement("SELECT count(*) FROM notifications").scalarInteger() ?? 0)
    }

    func notificationCursor(of token: String) throws -> Int64? {
        try connection.statement("SELECT next_id FROM notification_cursors WHERE token = ?").firstRow([.text(token)]) { $0.integer(0) }
    }

    func removeNotifications(_ entries: [StoredNotification]) throws -> Int {
        let deliver = try connection.statement("INSERT OR IGNORE INTO notification_deliveries(token, id) VALUES (?, ?)")
        var removed = 0
        for entry in entries {
            try deliver.execute([.text(entry.token), .integer(entry.key)])
            removed += connection.changes
        }
        return removed
    }

    func claimNotifications(for queues: [PushTokenQueue], now: Int64) throws -> [StoredNotification] {
        // One writer: what this transaction reads, no other takes before it commits.
        let deliver = try connection.statement("INSERT INTO notification_deliveries(token, id, channel, at) VALUES (?, ?, ?, ?)")
        // The entry taken is the oldest not handed out: every one before it now was.
        let advance = try connection.statement(
            """
            INSERT INTO notification_cursors(token, user, since, next_id) VALUES (?, ?, ?, ?)
            ON CONFLICT(token) DO UPDATE SET user = excluded.user, since = excluded.since, next_id = excluded.next_id
            """)
        var claimed: [StoredNotification] = []
        for queue in Set(queues) {
            guard let oldest = try oldestNotification(for: queue, now: now) else { continue }
            try deliver.execute([
                .text(queue.token), .integer(oldest.key), queue.channel.map { .integer($0.rawValue) } ?? .null, .integer(now),
            ])
            try advance.execute([.text(queue.token), .text(queue.user), .integer(queue.since), .integer(oldest.key + 1)])
            claimed.append(oldest)
        }
        return claimed
    }

    func unclaimNotifications(_ entries: [StoredNotification]) throws {
        // Handed out no more, each is back in its place; one already back stays as it is.
        let undeliver = try connection.statement("DELETE FROM notification_deliveries WHERE token = ? AND id = ?")
        let rewind = try connection.statement("UPDATE notification_cursors SET next_id = min(next_id, ?) WHERE token = ?")
        for entry in entries {
            try undeliver.execute([.text(entry.token), .integer(entry.key)])
            try rewind.execute([.integer(entry.key), .text(entry.token)])
        }
    }

    func removeExpiredNotifications(before now: Int64, forgettingTrailsBefore forgetting: Int64) throws -> Int {
        // What became of each stays as its trail, with the deliveries that name it, for a while.
        try connection.statement(
            "DELETE FROM notification_deliveries WHERE id IN (SELECT id FROM notification_outcomes WHERE removed < ?)"
        ).execute([.integer(forgetting)])
        try connection.statement("DELETE FROM notification_outcomes WHERE removed < ?").execute([.integer(forgetting)])
        try connection.statement(
            """
            INSERT OR REPLACE INTO notification_outcomes(id, user, subscription, subject, created, expires, removed)
            SELECT id, user, subscription, subject, created, expires, ?1 FROM notifications WHERE expires <= ?1
            """
        ).execute([.integer(now)])
        try connection.statement("DELETE FROM notifications WHERE expires <= ?").execute([.integer(now)])
        let removed = connection.changes
        // A cursor with nothing left before it skips nothing: its token's gone, or took it all a day ago.
        try connection.execute(
            """
            DELETE FROM notification_cursors
            WHERE NOT EXISTS (SELECT 1 FROM notifications n WHERE n.user = notification_cursors.user AND n.id < next_id)
            """)
        return removed
    }
}
