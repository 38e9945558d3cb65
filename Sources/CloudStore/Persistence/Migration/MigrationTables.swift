/// The tables `migrate-store` copies as they are, row for row, in the order they are copied.
/// Columns kept differently on the two sides (flags, renamed columns) say how; what is not
/// here is made from these rows (see ``StoreMigration``).
enum MigrationTables {
    typealias Column = MigrationTable.Column

    // MARK: - Catalog

    /// The catalog's tables; its settings are one row on PostgreSQL, copied apart.
    static let catalog: [MigrationTable] = [
        MigrationTable("containers", key: ["container"], [Column("container", .text), Column("created", .integer)]),
        MigrationTable(
            "api_tokens", key: ["token"],
            [
                Column("token", .text), Column("container", .text), Column("environment", .text), Column("name", .text),
                Column("allowed_origins", .text), Column("sign_in_callback", .text), Column("created", .integer),
            ]),
        MigrationTable(
            "server_keys", key: ["key_id"],
            [
                Column("key_id", .text), Column("container", .text), Column("environment", .text), Column("public_key", .text),
                Column("user_record_name", .text), Column("name", .text), Column("created", .integer),
            ]),
        MigrationTable(
            "users", key: ["container", "user_record_name"],
            [
                Column("container", .text), Column("user_record_name", .text), Column("name", .text), Column("email", .text),
                Column("first_name", .text), Column("last_name", .text), Column("password", .text), Column("created", .integer),
                Column("discoverable", .bool),
            ]),
        MigrationTable(
            "sessions", key: ["id"],
            [
                Column("id", .text), Column("container", .text), Column("environment", .text), Column("user_record_name", .text),
                Column("token_lifetime", .integer), Column("created", .integer), Column("last_seen", .integer), Column("expires", .integer),
                Column("revoked", .integer),
            ]),
        MigrationTable(
            "push_tokens", key: ["token"],
            [
                Column("token", .text), Column("container", .text), Column("environment", .text), Column("apns_environment", .text),
                Column("user_record_name", .text), Column("created", .integer), Column("session", .text), Column("bound", .integer),
                Column("last_used", .integer),
            ]),
        MigrationTable(
            "operators", key: ["name"],
            [
                Column("name", .text), Column("password", .text), Column("created", .integer), Column("role", .text),
                Column("containers", .text),
            ]),
        MigrationTable(
            "operator_sessions", key: ["id"],
            [
                Column("id", .text), Column("operator", .text), Column("csrf", .text), Column("created", .integer),
                Column("last_seen", .integer), Column("expires", .integer), Column("revoked", .bool),
            ]),
        MigrationTable(
            "management_tokens", key: ["id"],
            [
                Column("id", .text), Column("hash", .text), Column("operator", .text), Column("name", .text), Column("created", .integer),
                Column("last_used", .integer), Column("revoked", .bool),
            ]),
        MigrationTable(
            "schema_deployments", key: ["id"],
            [
                Column("id", .integer), Column("container", .text), Column("deployed", .integer), Column("deployed_by", .text),
                Column("changes", .text), Column("schema", .text),
            ]),
        MigrationTable(
            "audit_log", key: ["id"],
            [
                Column("id", .integer), Column("time", .integer), Column("actor", .text), Column("operator", .text),
                Column("container", .text), Column("environment", .text), Column("action", .text), Column("target", .text),
                Column("client", .text),
            ]),
        MigrationTable(
            "environment_limits", key: ["container", "environment"],
            [
                Column("container", .text), Column("environment", .text), Column("requests_per_second", .real), Column("burst", .integer),
                Column("storage_bytes", .integer), Column("transfer_bytes_per_month", .integer),
            ]),
        MigrationTable(
            "seeds", key: ["container", "name"],
            [
                Column("container", .text), Column("name", .text), Column("created", .integer), Column("created_by", .text),
                Column("scope", .integer), Column("owner", .text), Column("selection", .text), Column("record_types", .text),
                Column("schema", .text), Column("records", .integer), Column("blobs", .integer), Column("blob_bytes", .integer),
            ]),
        MigrationTable(
            "seed_records", key: ["container", "seed", "position"],
            [Column("container", .text), Column("seed", .text), Column("position", .integer), Column("data", .bytes)]),
        MigrationTable(
            "seed_blobs", key: ["container", "seed", "sha"],
            [
                Column("container", .text), Column("seed", .text), Column("sha", .text), Column("size", .integer),
                Column("stored", .integer),
                Column("compressed", .bool), Column("created", .integer), Column("content_type", .text), Column("bytes", .bytes),
            ]),
        MigrationTable(
            "personal_fields", key: ["container", "record_type", "field"],
            [Column("container", .text), Column("record_type", .text), Column("field", .text)]),
    ]

    /// The catalog's settings row as both sides keep it: the secret that seals every token and
    /// the change counter.
    static let settings = MigrationTable("settings", key: [], [Column("secret", .text), Column("change_counter", .integer)])

    /// Catalog tables whose ids PostgreSQL numbers itself, and so continues after the copied ones.
    static let catalogIdentities = [("schema_deployments", "id"), ("audit_log", "id")]

    // MARK: - Environments

    /// The schema of an environment: roles, record types, their grants and fields. A field's
    /// slot is PostgreSQL's own (its columns have one type each), so it is not copied.
    static let schema: [MigrationTable] = [
        MigrationTable("roles", key: ["name"], [Column("name", .text), Column("position", .integer)]),
        MigrationTable("record_types", key: ["type"], [Column("type", .integer), Column("name", .text), Column("position", .integer)]),
        MigrationTable(
            "grants", key: ["type", "position"],
            [
                Column("type", .integer), Column("position", .integer), Column("role", .text), Column("permissions", .text),
            ]),
        MigrationTable(
            "fields", key: ["field"],
            [
                Column("field", .integer), Column("type", .integer), Column("name", .text), Column("position", .integer),
                Column("field_type", .text), Column("encrypted", .bool), Column("number_preference", .text), Column("queryable", .bool),
                Column("sortable", .bool), Column("searchable", .bool),
            ]),
    ]

    /// Zones, with the counter each one's next change continues from: its last sequence, or
    /// the newest tombstone forgotten when that is later.
    static let zones = MigrationTable(
        "zones", key: ["zone"],
        [
            Column("zone", .integer), Column("scope", .integer), Column("owner", .text), Column("name", .text),
            Column("created", .integer), Column("horizon", .integer),
            Column("last_seq", .integer, source: "max(coalesce((SELECT max(seq) FROM changes c WHERE c.zone = zones.zone), 0), horizon)"),
        ])

    /// Records, without their slot columns: those are PostgreSQL's own, made from the payload.
    static let records = MigrationTable(
        "records", key: ["rid"],
        [
            Column("rid", .integer), Column("zone", .integer), Column("name", .text), Column("type", .integer), Column("tag", .text),
            Column("parent", .text), Column("created", .integer), Column("created_by", .text), Column("created_device", .text),
            Column("modified", .integer), Column("modified_by", .text), Column("modified_device", .text), Column("size", .integer),
            Column("payload", .bytes),
        ])

    /// What an environment keeps beside its schema, zones and records.
    static let environment: [MigrationTable] = [
        MigrationTable(
            "changes", key: ["zone", "seq"],
            [
                Column("zone", .integer), Column("seq", .integer), Column("name", .text), Column("type", .integer),
                Column("kind", .integer),
                Column("creator", .text), Column("time", .integer), Column("tree", .text), Column("modified_by", .text),
                Column("modified_via", .text),
            ]),
        MigrationTable(
            "refs", key: ["source", "target_zone", "target", "action"],
            [
                Column("source", .integer), Column("target_zone", .integer), Column("target", .text), Column("action", .integer),
            ]),
        MigrationTable("user_roles", key: ["user", "role"], [Column("user", .text), Column("role", .text)]),
        MigrationTable("zone_stats", key: ["zone"], [Column("zone", .integer), Column("records", .integer), Column("bytes", .integer)]),
        MigrationTable(
            "type_stats", key: ["type", "zone"], [Column("type", .integer), Column("zone", .integer), Column("records", .integer)]),
        MigrationTable(
            "zone_log", key: ["scope", "owner", "name"],
            [
                Column("scope", .integer), Column("owner", .text), Column("name", .text), Column("seq", .integer), Column("deleted", .bool),
                Column("time", .integer),
            ]),
        MigrationTable(
            "subscriptions", key: ["scope", "owner", "user", "id"],
            [
                Column("scope", .integer), Column("owner", .text), Column("user", .text), Column("id", .text), Column("created", .integer),
                Column("body", .bytes),
            ]),
        MigrationTable(
            "notifications", key: ["id"],
            [
                Column("id", .integer), Column("user", .text), Column("created", .integer), Column("expires", .integer),
                Column("body", .bytes), Column("subscription", .text), Column("subject", .text),
            ]),
        MigrationTable(
            "notification_deliveries", key: ["token", "id"],
            [Column("token", .text), Column("id", .integer), Column("channel", .integer), Column("at", .integer)]),
        MigrationTable(
            "notification_outcomes", key: ["id"],
            [
                Column("id", .integer), Column("user", .text), Column("subscription", .text), Column("subject", .text),
                Column("created", .integer), Column("expires", .integer), Column("removed", .integer),
            ]),
        MigrationTable(
            "notification_cursors", key: ["token"],
            [
                Column("token", .text), Column("user", .text), Column("since", .integer), Column("next_id", .integer),
            ]),
        MigrationTable(
            "asset_blobs", key: ["sha"],
            [
                Column("sha", .text), Column("size", .integer), Column("stored", .integer), Column("compressed", .bool),
                Column("created", .integer), Column("type", .text),
            ]),
        MigrationTable("asset_refs", key: ["rid", "sha"], [Column("rid", .integer), Column("sha", .text)]),
        MigrationTable("asset_uploads", key: ["ticket"], [Column("ticket", .text), Column("expires", .integer)]),
        MigrationTable(
            "shares", key: ["zone", "name"],
            [
                Column("zone", .integer), Column("name", .text), Column("root", .text), Column("guid", .text),
                Column("public_permission", .text), Column("version", .integer), Column("created", .integer), Column("created_by", .text),
                Column("created_device", .text), Column("modified", .integer), Column("modified_by", .text),
                Column("modified_device", .text),
                Column("payload", .bytes),
            ]),
        MigrationTable(
            "share_participants", key: ["zone", "share", "user"],
            [
                Column("zone", .integer), Column("share", .text), Column("position", .integer), Column("user", .text),
                Column("permission", .text), Column("type", .text), Column("status", .text), Column("email", .text),
            ]),
    ]

    /// The record history and the trash: every kept version with who replaced it, when and
    /// through which credential, and the deleted zones, as a restore reads them. Their bytes are
    /// counted in `zone_stats` (copied above), under keys of no zone.
    static let history: [MigrationTable] = [
        MigrationTable(
            "record_history", key: ["id"],
            [
                Column("id", .integer), Column("scope", .integer), Column("owner", .text), Column("zone_name", .text),
                Column("name", .text), Column("type_name", .text), Column("tag", .text), Column("parent", .text),
                Column("created", .integer), Column("created_by", .text), Column("created_device", .text), Column("modified", .integer),
                Column("modified_by", .text), Column("modified_device", .text), Column("size", .integer), Column("payload", .bytes),
                Column("kind", .integer), Column("time", .integer), Column("replaced_by", .text), Column("replaced_via", .text),
            ]),
        MigrationTable(
            "zone_trash", key: ["id"],
            [
                Column("id", .integer), Column("zone_key", .integer), Column("scope", .integer), Column("owner", .text),
                Column("name", .text), Column("created", .integer), Column("time", .integer), Column("replaced_by", .text),
                Column("replaced_via", .text), Column("records", .integer),
            ]),
        // Which blobs each kept version holds: without them the copy's trashed blobs would be
        // collected.
        MigrationTable("history_assets", key: ["id", "sha"], [Column("id", .integer), Column("sha", .text)]),
    ]

    /// How long the environment keeps its history, when it sets its own (a row of `meta`).
    static let historyRetention = MigrationTable(
        "meta", key: ["key"], readBackFilter: "key = 'history_retention'", [Column("key", .text), Column("value", .text)])

    /// Each database's zone log counter: its last sequence, or the newest zone tombstone
    /// forgotten (kept in SQLite's `meta`) when that is later. Rows are made by the copy.
    static let databaseCounters = MigrationTable(
        "database_counters", key: ["scope", "owner"],
        [
            Column("scope", .integer), Column("owner", .text), Column("last_seq", .integer), Column("horizon", .integer),
        ])

    /// The environment's incarnation, which every change token carries.
    static let incarnation = MigrationTable(
        "meta", key: ["key"], readBackFilter: "key = 'incarnation'", [Column("key", .text), Column("value", .text)])

    /// Environment tables whose keys PostgreSQL numbers itself, and so continues after the copied ones.
    static let environmentIdentities = [
        ("zones", "zone"), ("record_types", "type"), ("fields", "field"), ("records", "rid"), ("notifications", "id"),
        ("record_history", "id"), ("zone_trash", "id"),
    ]

    // MARK: - Request log

    /// The calls of the request log: SQLite keeps them in blocks, PostgreSQL a row each.
    static let requests = MigrationTable(
        "requests", key: ["id"],
        [
            Column("id", .integer), Column("time", .integer), Column("container", .text), Column("environment", .text),
            Column("database", .text), Column("operation", .text), Column("user_name", .text), Column("client", .text),
            Column("status", .integer), Column("error_code", .text), Column("duration_us", .integer), Column("bytes_in", .integer),
            Column("bytes_out", .integer), Column("request_id", .text), Column("reason", .text), Column("credential", .text),
            Column("user_agent", .text), Column("record_types", .text), Column("zones", .text), Column("results", .integer),
            Column("result_errors", .text), Column("failed_results", .integer), Column("trace", .text),
            Column("schema_gap", .text),
        ])

    /// The usage minutes; the latency histogram is a blob on SQLite and an array of packed
    /// buckets on PostgreSQL, compared as the array's text.
    static let usageMinutes = MigrationTable(
        "usage_minutes", key: ["container", "environment", "minute"],
        [
            Column("container", .text), Column("environment", .text), Column("minute", .integer), Column("requests", .integer),
            Column("errors", .integer), Column("bytes_in", .integer), Column("bytes_out", .integer),
            Column("latency", .text, sourceKind: .bytes, readBack: "'{' || array_to_string(latency, ',') || '}'"),
            Column("storage_bytes", .integer),
        ])
}
