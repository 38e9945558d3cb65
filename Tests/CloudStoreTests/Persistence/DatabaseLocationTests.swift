import Testing

@testable import CloudStore

/// How a database location reads in logs, banners and command output: never with its password.
struct DatabaseLocationTests {
    @Test(arguments: [
        ("postgres://cumulus:s3cret@db:5432/cumulus", "PostgreSQL at postgres://cumulus:***@db:5432/cumulus"),
        (
            "postgresql://cumulus@db/cumulus?password=s3cret&sslmode=require",
            "PostgreSQL at postgresql://cumulus@db/cumulus?password=***&sslmode=require"
        ),
        (
            "postgres://cumulus:s3cret@db/cumulus?sslmode=disable&password=s3cret",
            "PostgreSQL at postgres://cumulus:***@db/cumulus?sslmode=disable&password=***"
        ),
        ("host=db user=cumulus password=s3cret dbname=cumulus", "PostgreSQL at (a connection string)"),
        ("postgres://cumulus@db/cumulus", "PostgreSQL at postgres://cumulus@db/cumulus"),
        ("host=db dbname=cumulus", "PostgreSQL at host=db dbname=cumulus"),
    ])
    func aLocationIsShownWithoutItsPassword(url: String, shown: String) {
        let description = DatabaseLocation.postgres(url: url).description
        #expect(description == shown)
        #expect(!description.contains("s3cret"))
    }
}
