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

    func subscriptionFirings() throws -> [SubscriptionFiring] {
        try connection.execute(
            "SELECT scope, owner, \"user\", id, last_fired, queued FROM \(table("subscriptions")) WHERE last_fired IS NOT NULL"
        ).map { row in
            SubscriptionFiring(
                database: Self.database(scope: row.integer(0), owner: row.text(1)), user: row.text(2), id: row.text(3),
                lastFired: row.integer(4), queued: row.integer(5))
        }
    }

    func noteSubscriptionFired(_ id: String, of user: String, in database: DatabaseID, at time: Int64, queued: Int) throws {
        try connection.execute(
            """
            UPDATE \(table("subscriptions")) SET last_fired = $1, queued = queued + $2
            WHERE scope = $3 AND owner = $4 AND "user" = $5 AND id = $6
            """,
            [
                .integer(time), .integer(Int64(queued)), .integer(StoredCodes.scopeCode(database.scope)), .text(database.owner),
                .text(user), .text(id),
            ])
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
            [
                .integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user), .text(subscription.subscriptionID),
                .integer(time), .bytes(SubscriptionCodec.encode(subscription)),
            ])
    }

    func deleteSubscription(_ id: String, of user: String, in database: DatabaseID) throws -> Bool {
        try connection.execute(
            "DELETE FROM \(table("subscriptions")) WHERE scope = $1 AND owner = $2 AND \"user\" = $3 AND id = $4",
            [.integer(StoredCodes.scopeCode(database.scope)), .text(database.owner), .text(user), .text(id)]
        ).affectedRows > 0
    }

    func enqueue(_ notification: QueuedNotification, expires: Int64, subject: String?) throws {
        // Entries of one subscriber are queued one transaction after the other, from the lock to
        // the commit, so that they become visible in the order of their keys: a token's cursor,
        // moved past the entry it took, never passes one committed later with a smaller key.
        try connection.execute(
            """
            INSERT INTO \(table("notifications"))("user", created, expires, body, subscription, subject)
            SELECT $1, $2, $3, $4, $5, $6 FROM (SELECT pg_advisory_xact_lock(hashtextextended('cumulus.notify:' || $1, 0))) AS queued
            """,
            [
                .text(notification.userRecordName), .integer(notification.created), .integer(expires),
                .bytes(SubscriptionCodec.encode(notification)), .text(notification.subscriptionID), subject.map { .text($0) } ?? .null,
            ])
    }

    func notificationTrails(of user: String, createdAt time: Int64) throws -> [NotificationTrail] {
        let rows = try connection.execute(
            """
            SELECT \(NotificationTrail.queuedColumns) FROM \(table("notifications")) WHERE "user" = $1 AND created = $2
            UNION ALL
            SELECT \(NotificationTrail.removedColumns) FROM \(table("notification_outcomes")) WHERE "user" = $1 AND created = $2
            ORDER BY 1
            """,
            [.text(user), .integer(time)])
        return try rows.map { row in
            try NotificationTrail(row: row, user: user) { key in
                try connection.execute(
                    "SELECT \(NotificationHandover.columns) FROM \(table("notification_deliveries")) WHERE id = $1 ORDER BY at, token",
                    [.integer(key)]
                ).map { NotificationHandover(row: $0) }
            }
        }
    }

    /// The entries of the token `token`'s queue not handed to it: `user`'s since `since`, not
    /// expired at `now`, past its cursor, before which every entry was handed to it, so that a
    /// poll does not step over what it took today.
    private func pending(token: String, user: String, since: String, now: String) -> String {
        """
        FROM \(table("notifications")) n WHERE n."user" = \(user) AND n.created >= \(since) AND n.expires > \(now)
        AND n.id >= coalesce((SELECT c.next_id FROM \(table("notification_cursors")) c
            WHERE c.token = \(token) AND c."user" = \(user) AND c.since = \(since)), 0)
        AND NOT EXISTS (SELECT 1 FROM \(table("notification_deliveries")) d WHERE d.token = \(token) AND d.id = n.id)
        """
    }

    func oldestNotification(for queue: PushTokenQueue, now: Int64) throws -> StoredNotification? {
        try connection.execute(
            "SELECT \(StoredNotification.columns) \(pending(token: "$1", user: "$2", since: "$3", now: "$4")) ORDER BY id LIMIT 1",
            [.text(queue.token), .text(queue.user), .integer(queue.since), .integer(now)]
        ).first { try StoredNotification(row: $0, token: queue.token) }
    }

    func pendingNotifications(for queue: PushTokenQueue, now: Int64, limit: Int) throws -> [StoredNotification] {
        try connection.execute(
            "SELECT \(StoredNotification.columns) \(pending(token: "$1", user: "$2", since: "$3", now: "$4")) ORDER BY id LIMIT $5",
            [.text(queue.token), .text(queue.user), .integer(queue.since), .integer(now), .integer(Int64(limit))]
        ).map { try StoredNotification(row: $0, token: queue.token) }
    }

    func queuedNotificationCount(for queue: PushTokenQueue, now: Int64) throws -> Int {
        Int(
            try connection.execute(
                "SELECT count(*) \(pending(token: "$1", user: "$2", since: "$3", now: "$4"))",
                [.text(queue.token), .text(queue.user), .integer(queue.since), .integer(now)]
            ).scalarInteger() ?? 0)
    }

    func queuedNotificationRowCount() throws -> Int {
        Int(try connection.execute("SELECT count(*) FROM \(table("notifications"))").scalarInteger() ?? 0)
    }

    func notificationCursor(of token: String) throws -> Int64? {
        try connection.execute("SELECT next_id FROM \(table("notification_cursors")) WHERE token = $1", [.text(token)]).first {
            $0.integer(0)
        }
    }

    func removeNotifications(_ entries: [StoredNotification]) throws -> Int {
        guard !entries.isEmpty else { return 0 }
        // Only the poll that marked an entry handed it out: with polls in several processes, an
        // entry another poll marked first is not counted (nor delivered) here.
        return try connection.execute(
            """
            INSERT INTO \(table("notification_deliveries"))(token, id) SELECT * FROM unnest($1::text[], $2::bigint[])
            ON CONFLICT DO NOTHING
            """,
            [.textArray(entries.map(\.token)), .integerArray(entries.map(\.key))]
        ).affectedRows
    }

    func claimNotifications(for queues: [PushTokenQueue], now: Int64) throws -> [StoredNotification] {
        let queues = Array(Set(queues))
        guard !queues.isEmpty else { return [] }
        // Claims of one token wait for each other (until commit, so that the second sees what
        // the first handed out and takes the next entry), taking their locks in one order so
        // that two claims of several tokens never deadlock.
        try lockCourier(of: queues.map(\.token))
        let claimed = try connection.execute(
            """
            WITH picked AS (
                SELECT q.token, q.channel, oldest.id
                FROM unnest($1::text[], $2::text[], $3::bigint[], $5::bigint[]) AS q(token, usr, since, channel) CROSS JOIN LATERAL (
                    SELECT n.id \(pending(token: "q.token", user: "q.usr", since: "q.since", now: "$4")) ORDER BY n.id LIMIT 1) AS oldest
            ), handed AS (
                INSERT INTO \(table("notification_deliveries"))(token, id, channel, at)
                SELECT token, id, nullif(channel, 0), $4 FROM picked ON CONFLICT DO NOTHING RETURNING token, id
            ), advanced AS (
                -- The entry taken is the oldest not handed out: every one before it now was.
                INSERT INTO \(table("notification_cursors"))(token, "user", since, next_id)
                SELECT q.token, q.usr, q.since, h.id + 1 FROM handed h JOIN unnest($1::text[], $2::text[], $3::bigint[]) AS q(token, usr, since)
                    ON q.token = h.token
                ON CONFLICT (token) DO UPDATE SET "user" = excluded."user", since = excluded.since, next_id = excluded.next_id
            )
            SELECT h.token, n.id, n.expires, n.body FROM handed h JOIN \(table("notifications")) n ON n.id = h.id ORDER BY n.id
            """,
            [
                .textArray(queues.map(\.token)), .textArray(queues.map(\.user)), .integerArray(queues.map(\.since)), .integer(now),
                .integerArray(queues.map { $0.channel?.rawValue ?? 0 }),
            ]
        )
        return try claimed.map { try StoredNotification(row: $0, token: $0.text(0), offset: 1) }
    }

    func unclaimNotifications(_ entries: [StoredNotification]) throws {
        guard !entries.isEmpty else { return }
        // Handed out no more, each is back in its place; one already back stays as it is. A claim
        // of the same token waits, so that it moves the cursor from where this one leaves it.
        try lockCourier(of: entries.map(\.token))
        try connection.execute(
            """
            DELETE FROM \(table("notification_deliveries")) d USING unnest($1::text[], $2::bigint[]) AS e(token, id)
            WHERE d.token = e.token AND d.id = e.id
            """,
            [.textArray(entries.map(\.token)), .integerArray(entries.map(\.key))])
        try connection.execute(
            """
            UPDATE \(table("notification_cursors")) c SET next_id = least(c.next_id, e.id)
            FROM (SELECT token, min(id) AS id FROM unnest($1::text[], $2::bigint[]) AS e(token, id) GROUP BY token) AS e
            WHERE c.token = e.token
            """,
            [.textArray(entries.map(\.token)), .integerArray(entries.map(\.key))])
    }

    /// Makes claims and put-backs of these tokens wait for this transaction's end, taking the
    /// locks in one order so that two of several tokens never deadlock.
    private func lockCourier(of tokens: [String]) throws {
        try connection.execute(
            """
            SELECT pg_advisory_xact_lock(key) FROM (
                SELECT DISTINCT hashtextextended('cumulus.courier:' || t, 0) AS key FROM unnest($1::text[]) AS t ORDER BY key OFFSET 0) AS keys
            """,
            [.textArray(tokens)])
    }

    func removeExpiredNotifications(before now: Int64, forgettingTrailsBefore forgetting: Int64) throws -> Int {
        // What became of each stays as its trail, with the deliveries that name it, for a while.
        try connection.execute(
            """
            DELETE FROM \(table("notification_deliveries")) WHERE id IN (
                SELECT id FROM \(table("notification_outcomes")) WHERE removed < $1)
            """,
            [.integer(forgetting)])
        try connection.execute("DELETE FROM \(table("notification_outcomes")) WHERE removed < $1", [.integer(forgetting)])
        try connection.execute(
            """
            INSERT INTO \(table("notification_outcomes"))(id, "user", subscription, subject, created, expires, removed)
            SELECT id, "user", subscription, subject, created, expires, $1 FROM \(table("notifications")) WHERE expires <= $1
            ON CONFLICT (id) DO NOTHING
            """,
            [.integer(now)])
        let removed = try connection.execute("DELETE FROM \(table("notifications")) WHERE expires <= $1", [.integer(now)]).affectedRows
        // A cursor with nothing left before it skips nothing: its token's gone, or took it all a day ago.
        try connection.execute(
            """
            DELETE FROM \(table("notification_cursors")) c
            WHERE NOT EXISTS (SELECT 1 FROM \(table("notifications")) n WHERE n."user" = c."user" AND n.id < c.next_id)
            """)
        return removed
    }
}
