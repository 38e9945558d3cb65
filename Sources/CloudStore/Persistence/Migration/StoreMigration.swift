import Foundation

/// Copies a store kept in SQLite files (a data directory: the catalog, one file per container
/// environment, the request log) into an empty PostgreSQL database, so that several servers can
/// share it and clients never notice the move.
///
/// Everything is copied as it is: zone keys, change sequences, change tags, the sealing secret
/// and each environment's incarnation, so that a change token, continuation marker or web auth
/// token issued by the SQLite server goes on working. The copy runs in one PostgreSQL
/// transaction, after the schema migrations: every table is read back and compared (row count
/// and checksum) before it commits, so a failure or a difference leaves nothing copied. Each
/// SQLite file is read in one read transaction, so a server still running on the directory
/// does not tear the copy (stop it first all the same: what it writes later is not copied).
///
/// Asset blobs' bytes are not copied: records keep their references, and the servers on
/// PostgreSQL must reach the same blobs (`--assets` naming the old data directory, or a copy).
///
/// ```swift
/// let report = try StoreMigration(from: "./data", to: "postgres://cumulus@db/cumulus").run()
/// print(report.rows, report.mismatches.isEmpty)
/// ```
public struct StoreMigration: Sendable {
    /// The data directory holding the SQLite store.
    public var dataDirectory: String
    /// The PostgreSQL database to copy into: a `postgres://` URL or a libpq connection string.
    public var targetURL: String

    /// A migration of the store in `dataDirectory` into the database `url` names.
    public init(from dataDirectory: String, to url: String) {
        self.dataDirectory = dataDirectory
        self.targetURL = url
    }

    /// Copies the store, verifies the copy and commits it.
    /// - Parameter progress: Told what is being copied, a line at a time.
    /// - Returns: Every table copied with its row counts and checksums, all matching.
    /// - Throws: ``CloudStoreError`` when the data directory holds no store or one of another
    ///   version, when the database cannot be reached or already holds a store, or when the
    ///   copy fails or differs; its message never holds the URL's password.
    @discardableResult
    public func run(progress: (String) -> Void = { _ in }) throws -> StoreMigrationReport {
        let source = try SourceStore(dataDirectory: dataDirectory)
        let connection = try connect()
        let schemas = source.environments.map { PostgresStorageBackend.environmentSchema($0.container, $0.environment) }
        try refuseNonEmptyTarget(connection, environmentSchemas: schemas)

        progress("Running the PostgreSQL migrations")
        let existing = try existingSchemas(connection, among: schemas)
        do {
            try mapped {
                try PostgresCatalogMigrations.migrator.migrate(connection, schema: PostgresCatalogMigrations.schema)
                try PostgresRequestLogMigrations.migrator.migrate(connection, schema: PostgresRequestLogMigrations.schema)
                for schema in schemas { try PostgresEnvironmentMigrations.migrator.migrate(connection, schema: schema) }
            }
            // Read outside the copy's transaction: a role without pg_monitor fails to, which
            // would abort it. The identity is recorded as the one the incarnation was issued on.
            let clusterIdentity = try? connection.execute(PostgresCatalogStore.clusterIdentityQuery).first { $0.text(0) }

            let started = ContinuousClock.now
            let copier = MigrationCopier(connection: connection)
            let tables = try mapped {
                try connection.transaction {
                    progress("Copying the catalog")
                    try copyCatalog(source, clusterIdentity: clusterIdentity, copier)
                    for environment in source.environments {
                        progress("Copying \(environment.scope)")
                        try copyEnvironment(environment, copier)
                    }
                    progress("Copying the request log")
                    try copyRequestLog(source, copier)
                    progress("Verifying the copy")
                    let tables = try copier.verify()
                    let mismatches = tables.filter { !$0.matches }
                    guard mismatches.isEmpty else {
                        let names = mismatches.map { "\($0.scope) \($0.name) (\($0.sourceRows) rows read, \($0.targetRows) stored)" }
                        throw CloudStoreError.internalError(
                            "The copy differs from the SQLite store in \(names.joined(separator: ", ")); nothing was written")
                    }
                    return tables
                }
            }
            return StoreMigrationReport(tables: tables, seconds: Self.seconds(since: started))
        } catch {
            // The migrations made the environments' schemas empty; those that were not there before go again.
            for schema in schemas where !existing.contains(schema) {
                try? connection.executeScript("DROP SCHEMA IF EXISTS \(PostgresIdentifier.quote(schema)) CASCADE")
            }
            throw error
        }
    }

    private static func seconds(since start: ContinuousClock.Instant) -> Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    // MARK: - The target

    /// A connection to the target; a failure says why without the URL.
    private func connect() throws -> PostgresConnection {
        do {
            return try PostgresConnection(url: targetURL, applicationName: "cumulus migrate-store")
        } catch {
            throw CloudStoreError.badRequest(redacting(error.message))
        }
    }

    /// `message` without the URL's password, should libpq ever repeat it.
    private func redacting(_ message: String) -> String {
        var message = message
        for secret in Self.passwords(in: targetURL) where !secret.isEmpty {
            message = message.replacingOccurrences(of: secret, with: "***")
        }
        return message
    }

    /// The password of a `postgres://user:password@…` URL and of a `password=…` keyword or query
    /// parameter, each as written and decoded.
    private static func passwords(in url: String) -> [String] {
        var found: [String] = []
        if let scheme = url.range(of: "://"), let at = url[scheme.upperBound...].firstIndex(of: "@"),
            let colon = url[scheme.upperBound..<at].firstIndex(of: ":")
        {
            found.append(String(url[url.index(after: colon)..<at]))
        }
        if let range = url.range(of: "password=") {
            found.append(String(url[range.upperBound...].prefix { !$0.isWhitespace && $0 != "&" }))
        }
        return found + found.compactMap { $0.removingPercentEncoding }
    }

    /// Refuses a database that already holds a store, before anything is written: any row of
    /// the catalog, settings changed otherwise than by recording the cluster's identity (as
    /// `cumulus migrate` does), a logged call, or an environment's schema with zones, types or records.
    private func refuseNonEmptyTarget(_ connection: PostgresConnection, environmentSchemas: [String]) throws {
        try mapped {
            func exists(_ relation: String) throws -> Bool {
                try connection.execute("SELECT to_regclass($1) IS NOT NULL", [.text(relation)]).first { $0.bool(0) } ?? false
            }
            func hasRows(_ relation: String) throws -> Bool {
                guard try exists(relation) else { return false }
                return try connection.execute("SELECT EXISTS (SELECT 1 FROM \(relation))").first { $0.bool(0) } ?? false
            }
            var found: [String] = []
            for table in MigrationTables.catalog where try hasRows("catalog.\(table.name)") {
                found.append(table.name.replacingOccurrences(of: "_", with: " "))
            }
            if try exists("catalog.settings"),
                let changed = try connection.execute(
                    "SELECT change_counter > CASE WHEN cluster_identity = '' THEN 0 ELSE 1 END FROM catalog.settings"
                ).first({ $0.bool(0) }), changed
            {
                found.append("changed settings")
            }
            if try hasRows("requestlog.requests") { found.append("logged requests") }
            for schema in environmentSchemas {
                let quoted = PostgresIdentifier.quote(schema)
                if try ["zones", "record_types", "records"].contains(where: { try hasRows("\(quoted).\($0)") }) {
                    found.append("environment \(schema)")
                }
            }
            guard found.isEmpty else {
                throw CloudStoreError.exists(
                    "The target database already holds a store (\(found.joined(separator: ", "))): migrate-store copies into an "
                        + "empty database only. Nothing was written.")
            }
        }
    }

    /// Which of `schemas` the database has already.
    private func existingSchemas(_ connection: PostgresConnection, among schemas: [String]) throws -> Set<String> {
        try mapped {
            Set(
                try connection.execute("SELECT nspname::text FROM pg_namespace WHERE nspname = ANY($1::text[])", [.textArray(schemas)])
                    .map { $0.text(0) })
        }
    }

    /// Runs `body`, reporting PostgreSQL's failures by their message alone (never a statement).
    private func mapped<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as PostgresError {
            throw CloudStoreError.internalError("PostgreSQL failed: \(redacting(error.message))")
        }
    }
}
