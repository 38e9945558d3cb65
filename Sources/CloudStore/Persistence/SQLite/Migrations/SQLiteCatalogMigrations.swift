/// The numbered migrations of the catalog file (`cumulus.sqlite`).
enum SQLiteCatalogMigrations {
    static let migrator = SQLiteMigrator(migrations: [
        """
        CREATE TABLE settings(
            key TEXT PRIMARY KEY,
            value TEXT NOT NULL
        ) WITHOUT ROWID;
        INSERT INTO settings(key, value) VALUES ('secret', lower(hex(randomblob(32))));

        CREATE TABLE containers(
            container TEXT PRIMARY KEY,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        """
        CREATE TABLE api_tokens(
            token TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            name TEXT NOT NULL,
            allowed_origins TEXT NOT NULL,
            sign_in_callback TEXT,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE server_keys(
            key_id TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            public_key TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;

        CREATE TABLE users(
            container TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            name TEXT NOT NULL,
            email TEXT,
            first_name TEXT,
            last_name TEXT,
            password TEXT NOT NULL,
            created INTEGER NOT NULL,
            PRIMARY KEY(container, user_record_name)
        ) WITHOUT ROWID;
        CREATE UNIQUE INDEX users_by_name ON users(container, name COLLATE NOCASE);

        CREATE TABLE sessions(
            id TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            user_record_name TEXT NOT NULL,
            token_lifetime INTEGER NOT NULL,
            created INTEGER NOT NULL,
            revoked INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;

        CREATE TABLE push_tokens(
            token TEXT PRIMARY KEY,
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            apns_environment TEXT NOT NULL,
            user_record_name TEXT,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        """,
        """
        INSERT INTO settings(key, value) VALUES ('change_counter', '0');
        """,
        // Sessions end after a time without use and at an absolute expiry; a user's sessions
        // are found together to sign them all out.
        """
        ALTER TABLE sessions ADD COLUMN last_seen INTEGER NOT NULL DEFAULT 0;
        ALTER TABLE sessions ADD COLUMN expires INTEGER NOT NULL DEFAULT 0;
        UPDATE sessions SET last_seen = created, expires = created + 30 * 24 * 3600 * 1000;
        CREATE INDEX sessions_by_user ON sessions(container, user_record_name);
        CREATE INDEX push_tokens_by_created ON push_tokens(container, environment, created);
        """,
        // Console operators, their sessions (stored as hashes of the secrets browsers hold) and
        // the management tokens scripts use (likewise).
        """
        CREATE TABLE operators(
            name TEXT PRIMARY KEY COLLATE NOCASE,
            password TEXT NOT NULL,
            created INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE operator_sessions(
            id TEXT PRIMARY KEY,
            operator TEXT NOT NULL COLLATE NOCASE,
            csrf TEXT NOT NULL,
            created INTEGER NOT NULL,
            last_seen INTEGER NOT NULL,
            expires INTEGER NOT NULL,
            revoked INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        CREATE INDEX operator_sessions_by_operator ON operator_sessions(operator);
        CREATE TABLE management_tokens(
            id TEXT PRIMARY KEY,
            hash TEXT NOT NULL,
            operator TEXT NOT NULL COLLATE NOCASE,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            last_used INTEGER,
            revoked INTEGER NOT NULL DEFAULT 0
        ) WITHOUT ROWID;
        """,
        // Production's schema history: every deployment, who made it, what it changed and the
        // schema it left.
        """
        CREATE TABLE schema_deployments(
            id INTEGER PRIMARY KEY,
            container TEXT NOT NULL,
            deployed INTEGER NOT NULL,
            deployed_by TEXT NOT NULL,
            changes TEXT NOT NULL,
            schema TEXT NOT NULL
        );
        CREATE INDEX schema_deployments_by_container ON schema_deployments(container, deployed);
        """,
        // The audit trail of operator actions, read newest first (by id, which each index
        // carries) and by operator, container or action; `time` serves the retention.
        """
        CREATE TABLE audit_log(
            id INTEGER PRIMARY KEY,
            time INTEGER NOT NULL,
            actor TEXT NOT NULL,
            operator TEXT NOT NULL COLLATE NOCASE,
            container TEXT,
            environment TEXT,
            action TEXT NOT NULL,
            target TEXT NOT NULL
        );
        CREATE INDEX audit_log_by_time ON audit_log(time);
        CREATE INDEX audit_log_by_operator ON audit_log(operator);
        CREATE INDEX audit_log_by_container ON audit_log(container);
        CREATE INDEX audit_log_by_action ON audit_log(action);
        """,
        // Whether each user may be found by others (user discovery), and finding them by email.
        """
        ALTER TABLE users ADD COLUMN discoverable INTEGER NOT NULL DEFAULT 0;
        CREATE INDEX users_by_email ON users(container, email COLLATE NOCASE);
        """,
        // Each environment's limits, as an operator set them; an environment without a row has
        // the standard ones.
        """
        CREATE TABLE environment_limits(
            container TEXT NOT NULL,
            environment TEXT NOT NULL,
            requests_per_second REAL NOT NULL,
            burst INTEGER NOT NULL,
            storage_bytes INTEGER,
            transfer_bytes_per_month INTEGER,
            PRIMARY KEY(container, environment)
        ) WITHOUT ROWID;
        """,
        // Each session keeps the environment it was opened for, and how it ended: a reset of
        // development ends that environment's sessions with an error saying so (revoked = 2).
        """
        ALTER TABLE sessions ADD COLUMN environment TEXT;
        CREATE INDEX sessions_by_environment ON sessions(container, environment) WHERE revoked = 0;
        """,
        // Notifications go to every push token of their subscriber.
        """
        CREATE INDEX push_tokens_by_user ON push_tokens(container, environment, user_record_name) WHERE user_record_name IS NOT NULL;
        """,
        // A push token ends with the session that created or registered it, and after going
        // unused; it gets its user's notifications queued since it was bound.
        """
        ALTER TABLE push_tokens ADD COLUMN session TEXT;
        ALTER TABLE push_tokens ADD COLUMN bound INTEGER;
        ALTER TABLE push_tokens ADD COLUMN last_used INTEGER NOT NULL DEFAULT 0;
        UPDATE push_tokens SET last_used = created, bound = CASE WHEN user_record_name IS NULL THEN NULL ELSE created END;
        CREATE INDEX push_tokens_by_session ON push_tokens(session) WHERE session IS NOT NULL;
        """,
        // The keys of audit entries moved from environments' outboxes (see
        // `EnvironmentMigrations`), kept as long as the entries: a move interrupted before the
        // outbox forgot them writes each entry once when it runs again.
        """
        CREATE TABLE audit_moves(
            key TEXT PRIMARY KEY,
            time INTEGER NOT NULL
        ) WITHOUT ROWID;
        CREATE INDEX audit_moves_by_time ON audit_moves(time);
        """,
        // When the courier was last polled with each push token: what the console's
        // Notifications view shows a device's last poll by. NULL until its first poll.
        "ALTER TABLE push_tokens ADD COLUMN last_polled INTEGER;",
        // Where each operator action came from (the client's address; through a trusted proxy,
        // the client behind it). NULL for the command line and for actions recorded before.
        "ALTER TABLE audit_log ADD COLUMN client TEXT;",
        // Operators have a role and may be limited to some containers (their identifiers, separated
        // by spaces; none for every container). Those made before roles are owners of every container.
        """
        ALTER TABLE operators ADD COLUMN role TEXT NOT NULL DEFAULT 'owner';
        ALTER TABLE operators ADD COLUMN containers TEXT NOT NULL DEFAULT '';
        """,
        // Seeds: records of development kept apart from the environment (a record as one value,
        // with the blobs of its assets and its types' definitions), which a reset of development
        // restores. Personal fields: the fields whose values a copy from production masks.
        """
        CREATE TABLE seeds(
            container TEXT NOT NULL,
            name TEXT NOT NULL,
            created INTEGER NOT NULL,
            created_by TEXT NOT NULL,
            scope INTEGER NOT NULL,
            owner TEXT NOT NULL,
            selection TEXT NOT NULL,
            record_types TEXT NOT NULL,
            schema TEXT NOT NULL,
            records INTEGER NOT NULL,
            blobs INTEGER NOT NULL,
            blob_bytes INTEGER NOT NULL,
            PRIMARY KEY(container, name)
        ) WITHOUT ROWID;
        CREATE TABLE seed_records(
            container TEXT NOT NULL,
            seed TEXT NOT NULL,
            position INTEGER NOT NULL,
            data BLOB NOT NULL,
            PRIMARY KEY(container, seed, position)
        ) WITHOUT ROWID;
        CREATE TABLE seed_blobs(
            container TEXT NOT NULL,
            seed TEXT NOT NULL,
            sha TEXT NOT NULL,
            size INTEGER NOT NULL,
            stored INTEGER NOT NULL,
            compressed INTEGER NOT NULL,
            created INTEGER NOT NULL,
            content_type TEXT NOT NULL,
            bytes BLOB NOT NULL,
            PRIMARY KEY(container, seed, sha)
        );
        CREATE TABLE personal_fields(
            container TEXT NOT NULL,
            record_type TEXT NOT NULL,
            field TEXT NOT NULL,
            PRIMARY KEY(container, record_type, field)
        ) WITHOUT ROWID;
        """,
    ])
}
