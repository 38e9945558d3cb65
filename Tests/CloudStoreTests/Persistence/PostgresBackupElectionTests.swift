import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Elections on one PostgreSQL database stand for `cumulus serve` processes with a backup
/// schedule: one takes the scheduled backups, the others not, until its session ends.
@Suite(.enabled(if: TestBackend.isDefaultRun, "Runs against PostgreSQL itself, once, in the default run"))
struct PostgresBackupElectionTests {
    @Test func oneProcessTakesTheScheduledBackupsAndAnotherOnceItsSessionEnds() throws {
        let database = try TestPostgres.makeDatabase()
        let first = PostgresBackupElection(url: database.url)
        let second = PostgresBackupElection(url: database.url)
        #expect(first.holdsScheduledBackups())
        #expect(!second.holdsScheduledBackups(), "the first holds the election")
        #expect(first.holdsScheduledBackups(), "and keeps it")
        #expect(!second.holdsScheduledBackups())

        // The first's session ends, as when its process is killed or its connection breaks (waited for).
        let raw = try RawPostgres(url: database.url)
        let ended = try raw.execute(
            """
            SELECT pg_terminate_backend(pid, 60000) FROM pg_locks
            WHERE locktype = 'advisory' AND granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
        #expect(ended == [["t"]], "one session held it")
        #expect(second.holdsScheduledBackups(), "another takes over at its next time")
        #expect(!first.holdsScheduledBackups(), "the first, connected again, finds it taken")
    }
}
