/// The numbered migrations of the catalog on PostgreSQL, all in the schema `catalog`.
///
/// The tables mirror the SQLite catalog's (``SQLiteCatalogMigrations``), with PostgreSQL's types:
/// `bigint` for integers and milliseconds, `boolean` for flags. Columns that SQLite compares or
/// sorts without regard to case (`COLLATE NOCASE`), or sorts and ranges byte by byte, are
/// `COLLATE "C"` here: under it `lower()` folds ASCII alone and order is byte order, as in
/// SQLite, whatever locale the database was made with. Names compared without case get a unique
/// or plain index on `lower(…)`.
enum PostgresCatalogMigrations {
    /// The PostgreSQL schema the catalog's tables live in.
    static let schema = "catalog"

    /// The catalog's migrations, in order.
    static let migrator = PostgresMigrator(migrations: [
        // Settings are one row. The secret and the incarnation are made here, by the system's
        // generator: PostgreSQL's core has no cryptographic one without pgcrypto.
        .steps { connection, schema in
            try connection.executeScript(
                """
                CREATE TABLE \(schema).settings(
                    only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
                    secret text NOT NULL,
                    change_counter bigint NOT NULL DEFAULT 0,
                    incarnation text NOT NULL,
                    cluster_identity text NOT NULL DEFAULT ''
                );
                CREATE TABLE \(schema).containers(
                    container text COLLATE "C" PRIMARY KEY,
                    created bigint NOT NULL
                );
                """)
            try connection.execute(
                "INSERT INTO \(schema).settings(secret, incarnation) VALUES ($1, $2)",
                [.text(SecureToken.hex(bytes: 32)), .text(SecureToken.hex(bytes: 8))])
        },
        // API tokens, server-to-server keys, users, their web sessions and push tokens.
        """
        CREATE TABLE {schema}.api_tokens(
            token text COLLATE "C" PRIMARY KEY,
            container text NOT NULL,
            environment text NOT NULL,
            name text NOT NULL,
            allowed_origins text NOT NULL,
            sign_in_callback text,
            created bigint NOT NULL
        );
        CREATE INDEX api_tokens_by_container ON {schema}.api_tokens(container);

        CREATE TABLE {schema}.server_keys(
            key_id text COLLATE "C" PRIMARY KEY,
            container text NOT NULL,
            environment text NOT NULL,
            public_key text NOT NULL,
            user_record_name text NOT NULL,
            name text NOT NULL,
            created bigint NOT NULL
        );
        CREATE INDEX server_keys_by_container ON {schema}.server_keys(container);

        CREATE TABLE {schema}.users(
            container text NOT NULL,
            user_record_name text NOT NULL,
            name text COLLATE "C" NOT NULL,
            email text COLLATE "C",
            first_name text,
            last_name text,
            password text NOT NULL,
            created bigint NOT NULL,
            discoverable boolean NOT NULL DEFAULT false,
            PRIMARY KEY(container, user_record_name)
        );
        CREATE UNIQUE INDEX users_by_name ON {schema}.users(container, lower(name));
        CREATE INDEX users_by_email ON {schema}.users(container, lower(email));

        -- revoked: 0 open, 1 ended, 2 ended by a reset of its environment.
        CREATE TABLE {schema}.sessions(
            id text PRIMARY KEY,
            container text NOT NULL,
            environment text,
            user_record_name text NOT NULL,
            token_lifetime bigint NOT NULL,
            created bigint NOT NULL,
            last_seen bigint NOT NULL,
            expires bigint NOT NULL,
            revoked smallint NOT NULL DEFAULT 0
        );
        CREATE INDEX sessions_by_user ON {schema}.sessions(container, user_record_name);
        CREATE INDEX sessions_by_environment ON {schema}.sessions(container, environment) WHERE revoked = 0;

        CREATE TABLE {schema}.push_tokens(
            token text COLLATE "C" PRIMARY KEY,
            container text NOT NULL,
            environment text NOT NULL,
            apns_environment text NOT NULL,
            user_record_name text,
            created bigint NOT NULL
        );
        CREATE INDEX push_tokens_by_created ON {schema}.push_tokens(container, environment, created);
        CREATE INDEX push_tokens_by_user ON {schema}.push_tokens(container, environment, user_record_name)
            WHERE user_record_name IS NOT NULL;
        """,
        // Console operators, their sessions (stored as hashes of the secrets browsers hold) and
        // the management tokens scripts use (likewise). Operators are named without regard to case.
        """
        CREATE TABLE {schema}.operators(
            name text COLLATE "C" PRIMARY KEY,
            password text NOT NULL,
            created bigint NOT NULL
        );
        CREATE UNIQUE INDEX operators_by_name ON {schema}.operators(lower(name));

        CREATE TABLE {schema}.operator_sessions(
            id text PRIMARY KEY,
            operator text COLLATE "C" NOT NULL,
            csrf text NOT NULL,
            created bigint NOT NULL,
            last_seen bigint NOT NULL,
            expires bigint NOT NULL,
            revoked boolean NOT NULL DEFAULT false
        );
        CREATE INDEX operator_sessions_by_operator ON {schema}.operator_sessions(lower(operator));

        CREATE TABLE {schema}.management_tokens(
            id text PRIMARY KEY,
            hash text NOT NULL,
            operator text COLLATE "C" NOT NULL,
            name text NOT NULL,
            created bigint NOT NULL,
            last_used bigint,
            revoked boolean NOT NULL DEFAULT false
        );
        CREATE INDEX management_tokens_by_operator ON {schema}.management_tokens(lower(operator));
        """,
        // Production's schema history, the audit trail of operator actions (read newest first,
        // by id, and by operator, container or action prefix; `time` serves the retention), and
        // each environment's limits as an operator set them (none: the standard ones).
        """
        CREATE TABLE {schema}.schema_deployments(
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            container text NOT NULL,
            deployed bigint NOT NULL,
            deployed_by text NOT NULL,
            changes text NOT NULL,
            schema text NOT NULL
        );
        CREATE INDEX schema_deployments_by_container ON {schema}.schema_deployments(container, deployed);

        CREATE TABLE {schema}.audit_log(
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            time bigint NOT NULL,
            actor text NOT NULL,
            operator text COLLATE "C" NOT NULL,
            container text,
            environment text,
            action text COLLATE "C" NOT NULL,
            target text NOT NULL
        );
        CREATE INDEX audit_log_by_time ON {schema}.audit_log(time);
        CREATE INDEX audit_log_by_operator ON {schema}.audit_log(lower(operator), id);
        CREATE INDEX audit_log_by_container ON {schema}.audit_log(container, id);
        CREATE INDEX audit_log_by_action ON {schema}.audit_log(action);

        CREATE TABLE {schema}.environment_limits(
            container text NOT NULL,
            environment text NOT NULL,
            requests_per_second double precision NOT NULL,
            burst bigint NOT NULL,
            storage_bytes bigint,
            transfer_bytes_per_month bigint,
            PRIMARY KEY(container, environment)
        );
        """,
        // The processes serving from this database, each under an id made at its start, with its
        // host and pid for operators: each beats every few seconds and deletes its row when it
        // stops, and those whose beat is recent share every environment's request rate.
        """
        CREATE TABLE {schema}.processes(
            id text PRIMARY KEY,
            host text NOT NULL,
            pid bigint NOT NULL,
            started bigint NOT NULL,
            last_beat bigint NOT NULL
        );
        """,
        // A push token ends with the session that created or registered it, and after going
        // unused; it gets its user's notifications queued since it was bound.
        """
        ALTER TABLE {schema}.push_tokens ADD COLUMN session text;
        ALTER TABLE {schema}.push_tokens ADD COLUMN bound bigint;
        ALTER TABLE {schema}.push_tokens ADD COLUMN last_used bigint NOT NULL DEFAULT 0;
        UPDATE {schema}.push_tokens SET last_used = created, bound = CASE WHEN user_record_name IS NULL THEN NULL ELSE created END;
        CREATE INDEX push_tokens_by_session ON {schema}.push_tokens(session) WHERE session IS NOT NULL;
        """,
        // When the courier was last polled with each push token: what the console's
        // Notifications view shows a device's last poll by. NULL until its first poll.
        "ALTER TABLE {schema}.push_tokens ADD COLUMN last_polled bigint;",
        // Where each operator action came from (the client's address; through a trusted proxy,
        // the client behind it). NULL for the command line and for actions recorded before.
        "ALTER TABLE {schema}.audit_log ADD COLUMN client text;",
        // Operators have a role and may be limited to some containers (their identifiers, separated
        // by spaces; none for every container). Those made before roles are owners of every container.
        """
        ALTER TABLE {schema}.operators ADD COLUMN role text NOT NULL DEFAULT 'owner';
        ALTER TABLE {schema}.operators ADD COLUMN containers text NOT NULL DEFAULT '';
        """,
        // Seeds: records of development kept apart from the environment (a record as one value,
        // with the blobs of its assets and its types' definitions), which a reset of development
        // restores. Personal fields: the fields whose values a copy from production masks.
        """
        CREATE TABLE {schema}.seeds(
            container text NOT NULL,
            name text NOT NULL,
            created bigint NOT NULL,
            created_by text NOT NULL,
            scope bigint NOT NULL,
            owner text NOT NULL,
            selection text NOT NULL,
            record_types text NOT NULL,
            schema text NOT NULL,
            records bigint NOT NULL,
            blobs bigint NOT NULL,
            blob_bytes bigint NOT NULL,
            PRIMARY KEY(container, name)
        );
        CREATE TABLE {schema}.seed_records(
            container text NOT NULL,
            seed text NOT NULL,
            position bigint NOT NULL,
            data bytea NOT NULL,
            PRIMARY KEY(container, seed, position)
        );
        CREATE TABLE {schema}.seed_blobs(
            container text NOT NULL,
            seed text NOT NULL,
            sha text NOT NULL,
            size bigint NOT NULL,
            stored bigint NOT NULL,
            compressed boolean NOT NULL,
            created bigint NOT NULL,
            content_type text NOT NULL,
            bytes bytea NOT NULL,
            PRIMARY KEY(container, seed, sha)
        );
        CREATE TABLE {schema}.personal_fields(
            container text NOT NULL,
            record_type text NOT NULL,
            field text NOT NULL,
            PRIMARY KEY(container, record_type, field)
        );
        """,
    ])
}
