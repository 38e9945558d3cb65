import Foundation
import TestSupport
import Testing

/// The command line on a PostgreSQL database: `--database-url` on every command that opens the
/// store, and `migrate`.
@Suite struct DatabaseCommandsTests {
    @Test func migrateAndContainersWorkOnASharedPostgreSQLDatabase() throws {
        let database = try TestPostgres.makeDatabase()
        let first = try TemporaryDirectory(), second = try TemporaryDirectory()
        // The test cluster trusts loopback, so the password is taken and not checked: what
        // matters is that no output shows it.
        let url = database.url.replacingOccurrences(of: "cumulus@", with: "cumulus:pw-s3cret@")
        let migrated = try CumulusBinary.run(["migrate", "--data-dir", first.path, "--database-url", url])
        #expect(migrated.status == 0, "\(migrated.error)")
        #expect(migrated.output.contains("Migrated the catalog, the request log and 0 environments"))
        #expect(!migrated.output.contains("pw-s3cret") && migrated.output.contains("cumulus:***@"))
        #expect(
            try CumulusBinary.run([
                "containers", "create", "iCloud.com.example.Shared", "--data-dir", first.path, "--database-url", database.url,
            ]).status == 0)
        // Another machine's data directory, the same database: the container is there.
        let listed = try CumulusBinary.run(
            ["containers", "list", "--data-dir", second.path], environment: ["CUMULUS_DATABASE_URL": database.url])
        #expect(listed.output.contains("iCloud.com.example.Shared"))
        let again = try CumulusBinary.run(["migrate", "--data-dir", second.path, "--database-url", database.url])
        #expect(again.output.contains("and 2 environments"))
        let tables = try RawPostgres(url: database.url).execute(
            "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'development\\_%' OR nspname LIKE 'production\\_%'")
        #expect(tables == [["2"]])
    }

    @Test func aDatabaseThatIsNotPostgreSQLIsRefusedWithoutEchoingIt() throws {
        let directory = try TemporaryDirectory()
        let refused = try CumulusBinary.run([
            "containers", "list", "--data-dir", directory.path, "--database-url", "mysql://root:hunter2@db/x",
        ])
        #expect(refused.status != 0)
        #expect(refused.error.contains("postgres://"))
        #expect(!refused.error.contains("hunter2"))
    }
}
