/// The numbered migrations of an environment file (`containers/<id>/<environment>.sqlite`).
///
/// A record is one row of `records`. Fields with QUERYABLE or SORTABLE indexes are also kept in
/// slot columns `p1`, `p2`, … (added as types need them; a location takes two), and each index is
/// a partial index over the records of its type: `ON records(zone, p3) WHERE type = 5`. Each
/// record type `N` may also have `rl_N` (the elements of indexed list fields) and `fts_N` (FTS5
/// over searchable fields). Those are created and altered as the schema changes. `user_roles`
/// holds the custom roles each user has been given; `zone_stats` and `type_stats` the counts of
/// records and bytes, kept by every write.
enum SQLiteEnvironmentMigrations {
    static let migrator = SQLiteMigrator(migrations: [
        """
        CREATE TABLE meta(
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO meta(key, value) VALUES ('schema_version', '1');
        INSERT INTO meta(key, value) VALUES ('incarnation', lower(hex(randomblob(8))));
        INSERT INTO meta(key, value) VALUES ('slot_columns', '0');

        CREATE TABLE zones(
            zone INTEGER PRIMARY KEY,
            scope INTEGER NOT NULL,
            owner TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            UNIQUE(scope, owner, name)
        );

        CREATE TABLE roles(
            name TEXT PRIMARY KEY,
            position INTEGER NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE record_types(
            type INTEGER PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            position INTEGER NOT NULL
        );

        CREATE TABLE grants(
            type INTEGER NOT NULL,
            position INTEGER NOT NULL,
            role TEXT NOT NULL,
            permissions TEXT NOT NULL,
            PRIMARY KEY(type, position)
        ) WITHOUT ROWID;

        CREATE TABLE fields(
            field INTEGER PRIMARY KEY,
            type INTEGER NOT NULL,
            name TEXT NOT NULL,
            position INTEGER NOT NULL,
            field_type TEXT NOT NULL,
            encrypted INTEGER NOT NULL,
            number_preference TEXT,
            queryable INTEGER NOT NULL,
            sortable INTEGER NOT NULL,
            searchable INTEGER NOT NULL,
            slot INTEGER,
            UNIQUE(type, name)
        );

        CREATE TABLE records(
            rid INTEGER PRIMARY KEY AUTOINCREMENT,
            zone INTEGER NOT NULL,
            name TEXT NOT NULL,
            type INTEGER NOT NULL,
            tag TEXT NOT NULL,
            parent TEXT,
            created INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            created_device TEXT NOT NULL,
            modified INTEGER NOT NULL,
            modified_by TEXT NOT NULL,
            modified_device TEXT NOT NULL,
            size INTEGER NOT NULL,
            payload BLOB NOT NULL
        );
        CREATE UNIQUE INDEX records_by_name ON records(zone, name);

        CREATE TABLE changes(
            zone INTEGER NOT NULL,
            seq INTEGER NOT NULL,
            name TEXT NOT NULL,
            type INTEGER NOT NULL,
            kind INTEGER NOT NULL,
            PRIMARY KEY(zone, seq)
        ) WITHOUT ROWID;

        CREATE TABLE refs(
            source INTEGER NOT NULL,
            target_zone INTEGER NOT NULL,
            target TEXT NOT NULL,
            action INTEGER NOT NULL,
            PRIMARY KEY(source, target_zone, target, action)
        ) WITHOUT ROWID;
        CREATE INDEX refs_by_target ON refs(target_zone, target, action);
        """,
        // Custom security roles held by users, as CloudKit keeps them on the user's record in
        // the public database: per environment, like the roles themselves.
        """
        CREATE TABLE user_roles(
            user TEXT NOT NULL,
            role TEXT NOT NULL,
            PRIMARY KEY(user, role)
        ) WITHOUT ROWID;
        CREATE INDEX user_roles_by_role ON user_roles(role);
        """,
        // How many records and bytes each zone holds, and how many records of each type: kept
        // up to date by every write, so that pages and quotas never count a whole table.
        """
        CREATE TABLE zone_stats(
            zone INTEGER PRIMARY KEY,
            records INTEGER NOT NULL,
            bytes INTEGER NOT NULL
        );
        INSERT INTO zone_stats(zone, records, bytes) SELECT zone, count(*), sum(size) FROM records GROUP BY zone;
        CREATE TABLE type_stats(
            type INTEGER NOT NULL,
            zone INTEGER NOT NULL,
            records INTEGER NOT NULL,
            PRIMARY KEY(type, zone)
        ) WITHOUT ROWID;
        INSERT INTO type_stats(type, zone, records) SELECT type, zone, count(*) FROM records GROUP BY type, zone;
        """,
        // Each change keeps the record's creator, so that a change feed shows a deletion only to
        // those who could read the record.
        """
        ALTER TABLE changes ADD COLUMN creator TEXT NOT NULL DEFAULT '';
        """,
        // The database-level log `changes/database` reads: one row per zone name of each
        // database, moved to the database's next sequence whenever the zone is created, changed
        // or deleted (a deleted zone keeps its row, marked, as the zone's tombstone). Changes
        // keep their time, so that tombstones can be forgotten after the retention; `horizon`
        // per zone is the newest tombstone forgotten, below which tokens have expired.
        """
        CREATE TABLE zone_log(
            scope INTEGER NOT NULL,
            owner TEXT NOT NULL,
            name TEXT NOT NULL,
            seq INTEGER NOT NULL,
            deleted INTEGER NOT NULL,
            time INTEGER NOT NULL,
            PRIMARY KEY(scope, owner, name)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX zone_log_by_seq ON zone_log(scope, owner, seq);
        INSERT INTO zone_log(scope, owner, name, seq, deleted, time)
            SELECT scope, owner, name, row_number() OVER (PARTITION BY scope, owner ORDER BY zone), 0, created FROM zones;
        ALTER TABLE changes ADD COLUMN time INTEGER NOT NULL DEFAULT 0;
        UPDATE changes SET time = CAST((julianday('now') - 2440587.5) * 86400000 AS INTEGER);
        ALTER TABLE zones ADD COLUMN horizon INTEGER NOT NULL DEFAULT 0;
        """,
        // Subscriptions, per database and subscriber, and the notifications they made, queued
        // per push token until the web courier hands them out: written in the transaction of
        // the change that made them, so that none is lost or made for a change rolled back.
        """
        CREATE TABLE subscriptions(
            scope INTEGER NOT NULL,
            owner TEXT NOT NULL,
            user TEXT NOT NULL,
            id TEXT NOT NULL,
            created INTEGER NOT NULL,
            body BLOB NOT NULL,
            PRIMARY KEY(scope, owner, user, id)
        ) WITHOUT ROWID;
        CREATE TABLE notifications(
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            token TEXT NOT NULL,
            expires INTEGER NOT NULL,
            body BLOB NOT NULL
        );
        CREATE INDEX notifications_by_token ON notifications(token, id);
        """,
        // Expired notifications are removed with each batch handed out, found by their expiry.
        """
        CREATE INDEX notifications_by_expiry ON notifications(expires);
        """,
        // Asset blobs, by the SHA-256 of their content, and which records hold each: a blob no
        // record holds is collected once its receipts have expired. Blob bytes count toward the
        // environment's storage.
        """
        CREATE TABLE asset_blobs(
            sha TEXT PRIMARY KEY,
            size INTEGER NOT NULL,
            stored INTEGER NOT NULL,
            compressed INTEGER NOT NULL,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE asset_refs(
            rid INTEGER NOT NULL,
            sha TEXT NOT NULL,
            PRIMARY KEY(rid, sha)
        ) WITHOUT ROWID;
        CREATE INDEX asset_refs_by_sha ON asset_refs(sha);
        """,
        // What an asset's content is, sniffed from its first bytes at upload: downloads carry it,
        // so that images show inline and anything else is only ever downloaded.
        """
        ALTER TABLE asset_blobs ADD COLUMN type TEXT NOT NULL DEFAULT 'application/octet-stream';
        """,
        // Shares of a record hierarchy or of a whole zone of a private database, and who they were
        // given to. A participant's shared database is read from the participants by user; a
        // hierarchy is followed from child to parent, and a query of a shared hierarchy from
        // parent to children. A deletion in a zone with shares keeps the root of the hierarchy
        // the record was in, so that the hierarchy's participants learn of it.
        """
        CREATE TABLE shares(
            zone INTEGER NOT NULL,
            name TEXT NOT NULL,
            root TEXT,
            guid TEXT NOT NULL UNIQUE,
            public_permission TEXT NOT NULL,
            version INTEGER NOT NULL,
            created INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            created_device TEXT NOT NULL,
            modified INTEGER NOT NULL,
            modified_by TEXT NOT NULL,
            modified_device TEXT NOT NULL,
            payload BLOB NOT NULL,
            PRIMARY KEY(zone, name)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX shares_by_root ON shares(zone, root);
        CREATE TABLE share_participants(
            zone INTEGER NOT NULL,
            share TEXT NOT NULL,
            position INTEGER NOT NULL,
            user TEXT NOT NULL,
            permission TEXT NOT NULL,
            type TEXT NOT NULL,
            status TEXT NOT NULL,
            PRIMARY KEY(zone, share, user)
        ) WITHOUT ROWID;
        CREATE INDEX share_participants_by_user ON share_participants(user, status);
        CREATE INDEX records_by_parent ON records(zone, parent) WHERE parent IS NOT NULL;
        ALTER TABLE changes ADD COLUMN tree TEXT;
        """,
        // The zones generation: moved by every delete or update of a zone, whoever makes it, so
        // that read transactions know when the zones they keep (SQLiteZoneCache) are still there.
        """
        INSERT INTO meta(key, value) VALUES ('zones_generation', '0');
        CREATE TRIGGER zones_deleted AFTER DELETE ON zones BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'zones_generation';
        END;
        CREATE TRIGGER zones_updated AFTER UPDATE ON zones BEGIN
            UPDATE meta SET value = CAST(value AS INTEGER) + 1 WHERE key = 'zones_generation';
        END;
        """,
        .steps(withoutRecordKeySequence),
        // The email address a share participant was invited by: an invitation by address is
        // kept as it is, its user unknown, until a user with the address accepts it.
        "ALTER TABLE share_participants ADD COLUMN email TEXT;",
        // Upload tickets that took their file, kept until they expire: an upload URL takes one.
        """
        CREATE TABLE asset_uploads(
            ticket TEXT PRIMARY KEY,
            expires INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // Notifications are queued once per subscriber, not once per push token, and each token
        // notes which it was handed: a subscriber holding many tokens costs a save one row per
        // notification. What was queued per token before goes (it would reach tokens twice).
        """
        DELETE FROM notifications;
        DROP INDEX notifications_by_token;
        ALTER TABLE notifications RENAME COLUMN token TO user;
        ALTER TABLE notifications ADD COLUMN created INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX notifications_by_user ON notifications(user, id);
        CREATE TABLE notification_deliveries(
            token TEXT NOT NULL,
            id INTEGER NOT NULL,
            PRIMARY KEY(token, id)
        ) WITHOUT ROWID;
        CREATE INDEX notification_deliveries_by_id ON notification_deliveries(id);
        """,
        // Each push token's cursor in its queue: every entry before `next_id` was handed to it, so
        // that a poll starts past what the token took instead of stepping over a day of it.
        """
        CREATE TABLE notification_cursors(
            token TEXT PRIMARY KEY,
            user TEXT NOT NULL,
            since INTEGER NOT NULL,
            next_id INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        // Operator actions on the environment, written by the transaction that makes the change
        // (the audit trail is in the catalog, another file) and moved into the trail after it
        // commits; what a crash left here is moved when the environment is opened.
        """
        CREATE TABLE audit_outbox(
            id INTEGER PRIMARY KEY,
            key TEXT NOT NULL,
            time INTEGER NOT NULL,
            actor TEXT NOT NULL,
            operator TEXT NOT NULL,
            container TEXT,
            environment TEXT,
            action TEXT NOT NULL,
            target TEXT NOT NULL
        );
        """,
        // A zone's records of one type in record-name order: what the console browses a type
        // by without a query, in time independent of the zone's other types.
        """
        CREATE INDEX records_by_type_name ON records(zone, type, name);
        """,
        // Who made each change (the user the change was stamped with): the Sync inspector's
        // "changed by". Changes logged before it say nothing (NULL).
        "ALTER TABLE changes ADD COLUMN modified_by TEXT;",
        // The API token or server key of the change's request, by name: the inspector's "from".
        "ALTER TABLE changes ADD COLUMN modified_via TEXT;",
        // A zone's changes by record name: the inspector's search finds a record's changes
        // among millions without reading them all.
        "CREATE INDEX changes_by_name ON changes(zone, name, seq);",
        // When each subscription last fired and how many notifications it queued: the
        // console's Notifications view. Written once per firing subscription and transaction.
        """
        ALTER TABLE subscriptions ADD COLUMN last_fired INTEGER;
        ALTER TABLE subscriptions ADD COLUMN queued INTEGER NOT NULL DEFAULT 0;
        """,
        // Where an operator action waiting in the outbox came from, moved with it into the trail.
        "ALTER TABLE audit_outbox ADD COLUMN client TEXT;",
        // The record history: each version a save or a deletion replaced, copied from its row
        // of `records` in the change's transaction and kept for the retention, by the zone's
        // name (a restored zone has a new key); a deleted record's last version is its place in
        // the trash. A deleted zone is kept in `zone_trash`, with its key, which the zone restored
        // in its place does not take: a token of the deleted zone never reads the new zone's log.
        """
        CREATE TABLE record_history(
            id INTEGER PRIMARY KEY,
            scope INTEGER NOT NULL,
            owner TEXT NOT NULL,
            zone_name TEXT NOT NULL,
            name TEXT NOT NULL,
            type_name TEXT NOT NULL,
            tag TEXT NOT NULL,
            parent TEXT,
            created INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            created_device TEXT NOT NULL,
            modified INTEGER NOT NULL,
            modified_by TEXT NOT NULL,
            modified_device TEXT NOT NULL,
            size INTEGER NOT NULL,
            payload BLOB NOT NULL,
            kind INTEGER NOT NULL,
            time INTEGER NOT NULL,
            replaced_by TEXT,
            replaced_via TEXT
        );
        CREATE INDEX record_history_by_record ON record_history(scope, owner, zone_name, name, id);
        CREATE TABLE zone_trash(
            id INTEGER PRIMARY KEY,
            zone_key INTEGER NOT NULL,
            scope INTEGER NOT NULL,
            owner TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            time INTEGER NOT NULL,
            replaced_by TEXT,
            replaced_via TEXT,
            records INTEGER NOT NULL
        );
        CREATE INDEX zone_trash_by_time ON zone_trash(time);
        """,
        // The history's bytes count in storage, in `zone_stats` beside the records' (see
        // HistoryRows.statsZone): what an environment kept before is counted once, here.
        """
        INSERT INTO zone_stats(zone, records, bytes) SELECT 0, 0, sum(size) FROM record_history HAVING count(*) > 0;
        """,
        // Which blobs each kept version holds (see ``HistoryAssetRows``), the versions kept
        // before given theirs from their payloads.
        .steps(withHistoryAssets),
        // What became of each notification, for the delivery tracer: the subscription and the
        // record whose change made it, how and when each token took it, and, once removed at its
        // expiry, its trail (the deliveries naming it stay as long).
        """
        ALTER TABLE notifications ADD COLUMN subscription TEXT;
        ALTER TABLE notifications ADD COLUMN subject TEXT;
        ALTER TABLE notification_deliveries ADD COLUMN channel INTEGER;
        ALTER TABLE notification_deliveries ADD COLUMN at INTEGER;
        CREATE TABLE notification_outcomes(
            id INTEGER PRIMARY KEY,
            user TEXT NOT NULL,
            subscription TEXT,
            subject TEXT,
            created INTEGER NOT NULL,
            expires INTEGER NOT NULL,
            removed INTEGER NOT NULL
        );
        CREATE INDEX notification_outcomes_by_user ON notification_outcomes(user, created);
        CREATE INDEX notification_outcomes_by_removal ON notification_outcomes(removed);
        """,
    ])

    @Sendable private static func withHistoryAssets(_ connection: SQLiteConnection) throws {
        try connection.execute(
            """
            CREATE TABLE history_assets(
                id INTEGER NOT NULL,
                sha TEXT NOT NULL,
                PRIMARY KEY(id, sha)
            ) WITHOUT ROWID;
            CREATE INDEX history_assets_by_sha ON history_assets(sha);
            """)
        let kept = try connection.statement("SELECT id, payload FROM record_history").rows {
            ($0.integer(0), try HistoryAssetRows.hashes(ofPayload: $0.blob(1)))
        }
        let insert = try connection.statement("INSERT OR IGNORE INTO history_assets(id, sha) VALUES (?, ?)")
        for (id, hashes) in kept {
            for sha in hashes { try insert.execute([.integer(id), .text(sha)]) }
        }
    }

    /// Record keys are taken as one more than the largest key, without `AUTOINCREMENT`:
    /// `AUTOINCREMENT` read and wrote `sqlite_sequence` on every insert, a page more in every
    /// commit: a sixteenth of a create's SQLite work alone, a tenth in a group. A key is taken
    /// again only after the record holding the largest was deleted, and every row naming a
    /// record by its key (indexes, list and search tables, references, asset references) goes
    /// with the record.
    ///
    /// The table's layout on disk is the same either way, so only its stored definition changes
    /// (`writable_schema`), and the schema cookie moves so that every connection, this
    /// process's or another's, reads the definition again before its next statement.
    @Sendable private static func withoutRecordKeySequence(_ connection: SQLiteConnection) throws {
        let cookie = try connection.statement("PRAGMA schema_version").scalarInteger() ?? 0
        try connection.execute(
            """
            PRAGMA writable_schema = ON;
            UPDATE sqlite_schema SET sql = replace(sql, 'rid INTEGER PRIMARY KEY AUTOINCREMENT', 'rid INTEGER PRIMARY KEY')
            WHERE type = 'table' AND name = 'records';
            PRAGMA schema_version = \(cookie + 1);
            PRAGMA writable_schema = OFF;
            DELETE FROM sqlite_sequence WHERE name = 'records';
            """)
        let definition =
            try connection.statement("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = 'records'")
            .firstRow { $0.text(0) } ?? ""
        guard !definition.contains("AUTOINCREMENT") else {
            throw CloudStoreError.internalError("The records table's definition kept AUTOINCREMENT")
        }
    }
}
