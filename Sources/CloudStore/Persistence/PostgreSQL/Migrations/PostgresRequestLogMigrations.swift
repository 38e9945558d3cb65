/// The numbered migrations of the request log on PostgreSQL, all in the schema `requestlog`.
///
/// Unlike the SQLite file, which packs calls in blocks (``RequestLogBlock``) numbered by its
/// one writer, calls are rows here: every process appends its own, numbered by an identity
/// column, so that ids stay unique and grow whichever process logs. Usage minutes are the
/// same rows as SQLite's, but every process adds to them, so the latency histogram is an array
/// that SQL can merge.
enum PostgresRequestLogMigrations {
    /// The PostgreSQL schema the request log's tables live in.
    static let schema = "requestlog"

    /// The request log's migrations, in order.
    static let migrator = PostgresMigrator(migrations: [
        // Every read names its container and wants the newest first: the indexes lead with the
        // container and end with the id, so a page is read in order from an index's end. Few
        // indexes, since every call pays for each: the environment, database, operation and
        // status filters read the container's index newest first, calls of the world (most of
        // a public app's) need no entry in the user index, and errors have their own. Time is a
        // BRIN index, a few pages for millions of rows appended in time order, which is all the
        // retention's deletes and a window into the past need.
        """
        CREATE TABLE {schema}.requests(
            id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
            time bigint NOT NULL,
            container text NOT NULL,
            environment text NOT NULL,
            database text NOT NULL,
            operation text NOT NULL,
            user_name text,
            client text NOT NULL,
            status integer NOT NULL,
            error_code text,
            duration_us bigint NOT NULL,
            bytes_in bigint NOT NULL,
            bytes_out bigint NOT NULL,
            request_id text NOT NULL
        );
        CREATE INDEX requests_by_container ON {schema}.requests(container, id);
        CREATE INDEX requests_by_user ON {schema}.requests(container, user_name, id) WHERE user_name IS NOT NULL;
        CREATE INDEX requests_with_errors ON {schema}.requests(container, id) WHERE status >= 400;
        CREATE INDEX requests_by_time ON {schema}.requests USING brin(time);
        """,
        // The usage counters: one row per environment and minute, read by time span for the
        // charts and the month's transfer, and forgotten by age. The latency histogram is its
        // non-empty buckets, each packed as `bucket << 40 | count`, so that two processes'
        // histograms of a minute merge in the statement that adds their counts.
        """
        CREATE TABLE {schema}.usage_minutes(
            container text NOT NULL,
            environment text NOT NULL,
            minute bigint NOT NULL,
            requests bigint NOT NULL,
            errors bigint NOT NULL,
            bytes_in bigint NOT NULL,
            bytes_out bigint NOT NULL,
            latency bigint[] NOT NULL,
            storage_bytes bigint,
            PRIMARY KEY(container, environment, minute)
        );
        CREATE INDEX usage_minutes_by_minute ON {schema}.usage_minutes(minute);

        CREATE FUNCTION {schema}.merge_latency(stored bigint[], added bigint[]) RETURNS bigint[]
        LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
            SELECT coalesce(array_agg((bucket << 40) + total ORDER BY bucket), '{}')
            FROM (SELECT packed >> 40 AS bucket, sum(packed & 1099511627775)::bigint AS total
                  FROM unnest(stored || added) AS packed GROUP BY 1) AS merged
        $$;
        """,
        // What a call's detail shows: the reason of an error answer, the credential by name,
        // the user agent, the record types and zones of its answer, and its results that failed
        // one by one (packed `CODE=count` pairs, their sum kept apart for "failures only").
        // Calls logged before have none of them.
        """
        ALTER TABLE {schema}.requests
            ADD COLUMN reason text,
            ADD COLUMN credential text,
            ADD COLUMN user_agent text,
            ADD COLUMN record_types text,
            ADD COLUMN zones text,
            ADD COLUMN results integer,
            ADD COLUMN result_errors text,
            ADD COLUMN failed_results integer NOT NULL DEFAULT 0;
        CREATE INDEX requests_with_failed_results ON {schema}.requests(container, id) WHERE failed_results > 0;
        """,
        // The call's access decisions (RequestLogEntry.trace) as JSON text: refusals, and what
        // a sampled call was allowed. Calls logged before have none.
        """
        ALTER TABLE {schema}.requests ADD COLUMN trace text;
        """,
        // What production's schema lacked when that refused the call (SchemaGap, packed), and
        // an index on the few such calls, which the schema guard reads by container.
        """
        ALTER TABLE {schema}.requests ADD COLUMN schema_gap text;
        CREATE INDEX requests_with_schema_gaps ON {schema}.requests(container, id) WHERE schema_gap IS NOT NULL;
        """,
    ])
}
