import Foundation

/// Backups of a store on PostgreSQL with PostgreSQL's own programs: `pg_dump -Fc` of the store's
/// schemas (one snapshot, so every change log in it is a prefix of the live one), and a restore
/// that replaces them in one transaction and gives the store a new incarnation in it.
struct PostgresBackup: StoreBackup {
    /// The database's URL.
    let url: String

    /// The schemas a store keeps in its database, as `pg_dump` patterns: what is backed up, and
    /// what a restore replaces. Anything else in the database is left alone.
    static let schemaPatterns = [
        PostgresCatalogMigrations.schema, PostgresRequestLogMigrations.schema, "development_*", "production_*",
    ]

    /// Writes a custom-format dump of the store's schemas to `path`, which must exist (made
    /// private by the caller: the dump holds the server's secret and every credential).
    func dump(to path: String) throws {
        let programs = try PostgresClientPrograms(url: url)
        let schemas = Self.schemaPatterns.flatMap { ["--schema", $0] }
        try programs.run("pg_dump", ["--format=custom", "--no-password", "--file", path] + schemas + ["--dbname", programs.connection])
    }

    /// Custom-format dumps begin with these bytes.
    func checkFormat(of path: String, header: [UInt8]?) throws {
        guard header == Array("PGDMP".utf8) else {
            throw CloudStoreError.badRequest("\(path) is not a backup made by `cumulus backup` (a pg_dump custom-format file)")
        }
    }

    /// Replaces the store's schemas with the dump at `path`, in one transaction: either the whole
    /// dump is in place, with a new incarnation so that every change token issued before expires,
    /// or nothing changed.
    ///
    /// `pg_restore` writes the dump out as SQL first, into `workDirectory` (private, and with room
    /// for the dump uncompressed), so that `psql` runs it only once it is whole: fed straight from
    /// a `pg_restore` that failed halfway, it would commit the half it got.
    func restore(from path: String, workDirectory: String) throws {
        let programs = try PostgresClientPrograms(url: url)
        let script = workDirectory + "/restore.sql"
        try programs.run("pg_restore", ["--no-owner", "--no-privileges", "--file", script, path])
        try programs.run(
            "psql",
            [
                "--no-psqlrc", "--quiet", "--no-password", "--single-transaction", "--set", "ON_ERROR_STOP=1",
                "--dbname", programs.connection,
                "--command", Self.dropStoreSchemas, "--file", script, "--command",
                Self.afterRestore(incarnation: SecureToken.hex(bytes: 8)),
            ])
    }

    /// Drops the store's schemas, after waiting for any migration: objects made since the backup
    /// (an environment, a record type's tables) must not outlive the restore.
    private static let dropStoreSchemas = """
        SELECT pg_advisory_xact_lock(\(PostgresMigrator.lockKey));
        DO $$
        DECLARE name text;
        BEGIN
            FOR name IN SELECT nspname FROM pg_namespace
                WHERE nspname IN ('\(PostgresCatalogMigrations.schema)', '\(PostgresRequestLogMigrations.schema)')
                    OR nspname ~ '^(development|production)_[0-9a-f]{20}$'
            LOOP
                EXECUTE format('DROP SCHEMA %I CASCADE', name);
            END LOOP;
        END $$;
        """

    /// Gives the restored store a new incarnation and no recorded cluster identity (the next
    /// process records the one it runs on), and tells running processes to read the catalog again.
    private static func afterRestore(incarnation: String) -> String {
        """
        UPDATE \(PostgresCatalogMigrations.schema).settings SET incarnation = '\(incarnation)', cluster_identity = '';
        SELECT pg_notify('\(PostgresNotifier.channel)', '\(PostgresCrossProcess.Item.catalog)');
        """
    }
}
