/// Applies numbered migrations to one PostgreSQL schema (a namespace: the catalog's, or one
/// environment's), tracked in that schema's `migrations` table.
///
/// Every process that opens the store migrates, so two may start at once: the migrations run in
/// one transaction under a transaction-level advisory lock, and the second process, once it has
/// the lock, finds nothing left to run. PostgreSQL's DDL is transactional, so a failed migration
/// leaves the schema as it was.
struct PostgresMigrator: Sendable {
    /// One migration: SQL statements with `{schema}` standing for the schema's quoted name, or
    /// steps that need values read first.
    enum Migration: ExpressibleByStringLiteral, Sendable {
        case sql(String)
        case steps(@Sendable (PostgresConnection, _ schema: String) throws -> Void)

        init(stringLiteral sql: String) { self = .sql(sql) }

        func run(on connection: PostgresConnection, schema: String) throws {
            switch self {
            case .sql(let sql): try connection.executeScript(sql.replacingOccurrences(of: "{schema}", with: schema))
            case .steps(let steps): try steps(connection, schema)
            }
        }
    }

    /// The migrations in order; migration `i` (0-based) brings the schema to version `i + 1`.
    var migrations: [Migration]

    /// The advisory lock every migration of every schema takes: one key for the whole database,
    /// since migrations are rare and short.
    static let lockKey: Int64 = 0x6375_6D75_6C75_7301

    /// Creates `schema` if needed and runs the migrations it has not run yet; returns how many ran.
    /// - Throws: when the schema is newer than this program knows.
    @discardableResult
    func migrate(_ connection: PostgresConnection, schema: String) throws -> Int {
        let quoted = PostgresIdentifier.quote(schema)
        return try connection.transaction {
            try connection.execute("SELECT pg_advisory_xact_lock($1)", [.integer(Self.lockKey)])
            try connection.executeScript(
                """
                CREATE SCHEMA IF NOT EXISTS \(quoted);
                CREATE TABLE IF NOT EXISTS \(quoted).migrations(version bigint PRIMARY KEY, applied bigint NOT NULL)
                """)
            let current = Int(try connection.execute("SELECT coalesce(max(version), 0) FROM \(quoted).migrations").scalarInteger() ?? 0)
            guard current <= migrations.count else {
                throw CloudStoreError.internalError(
                    "The database schema \(schema) has version \(current), newer than this program's \(migrations.count)")
            }
            for version in current..<migrations.count {
                try migrations[version].run(on: connection, schema: quoted)
                try connection.execute(
                    "INSERT INTO \(quoted).migrations(version, applied) VALUES ($1, (extract(epoch FROM clock_timestamp()) * 1000)::bigint)",
                    [.integer(version + 1)])
            }
            return migrations.count - current
        }
    }

    /// The version `schema` is at; 0 when it was never migrated.
    static func version(of schema: String, on connection: PostgresConnection) throws -> Int {
        let exists =
            try connection.execute(
                "SELECT 1 FROM pg_tables WHERE schemaname = $1 AND tablename = 'migrations'", [.text(schema)]
            ).count > 0
        guard exists else { return 0 }
        return Int(
            try connection.execute("SELECT coalesce(max(version), 0) FROM \(PostgresIdentifier.quote(schema)).migrations").scalarInteger()
                ?? 0)
    }
}

/// Quoting of names made by the store (schemas per environment, indexes per record type).
enum PostgresIdentifier {
    /// `name` as a quoted identifier, its quotes doubled.
    static func quote(_ name: String) -> String {
        "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }
}
