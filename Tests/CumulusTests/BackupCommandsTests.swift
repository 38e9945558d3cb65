import Foundation
import TestSupport
import Testing

/// `cumulus backup` and `cumulus restore` on a PostgreSQL database: their refusals, worded
/// without the password, and one round trip; on a data directory, the refusal of one that holds no store.
@Suite struct BackupCommandsTests {
    @Test func aBackupRestoredThroughTheCommandsBringsBackItsContainers() throws {
        let database = try TestPostgres.makeDatabase()
        let directory = try TemporaryDirectory()
        // The test cluster trusts loopback: the password is taken, not checked, and never shown.
        let url = database.url.replacingOccurrences(of: "cumulus@", with: "cumulus:pw-s3cret@")
        let common = ["--data-dir", directory.path + "/data", "--database-url", url]
        #expect(try CumulusBinary.run(["containers", "create", "iCloud.com.example.Kept"] + common).status == 0)

        let file = directory.path + "/cumulus.dump"
        let backup = try CumulusBinary.run(["backup", "--to", file] + common)
        #expect(backup.status == 0, "\(backup.error)")
        #expect(backup.output.contains("Backed up PostgreSQL at") && backup.output.contains(file))
        #expect(!(backup.output + backup.error).contains("pw-s3cret"))
        #expect(FileManager.default.fileExists(atPath: file))

        // A second backup never replaces the first.
        let again = try CumulusBinary.run(["backup", "--to", file] + common)
        #expect(again.status != 0 && again.error.contains("exists already"))

        #expect(try CumulusBinary.run(["containers", "create", "iCloud.com.example.Later"] + common).status == 0)
        let restore = try CumulusBinary.run(["restore", "--from", file] + common)
        #expect(restore.status == 0, "\(restore.error)")
        #expect(restore.output.contains("2 environments") && restore.output.contains("expired"))
        #expect(!(restore.output + restore.error).contains("pw-s3cret"))
        let listed = try CumulusBinary.run(["containers", "list"] + common)
        #expect(listed.output.contains("iCloud.com.example.Kept"))
        #expect(!listed.output.contains("iCloud.com.example.Later"))
    }

    @Test func wrongArgumentsAreRefusedClearlyAndWithoutThePassword() throws {
        let directory = try TemporaryDirectory()
        let data = ["--data-dir", directory.path + "/data"]

        let noFile = try CumulusBinary.run(["backup"] + data + ["--database-url", "postgres://u:hunter2@127.0.0.1:1/x"])
        #expect(noFile.status != 0 && noFile.error.contains("--to"))

        let notPostgres = try CumulusBinary.run(
            ["backup", "--to", directory.path + "/b"] + data + ["--database-url", "mysql://root:hunter2@db/x"])
        #expect(notPostgres.status != 0 && notPostgres.error.contains("postgres://"))
        #expect(!notPostgres.error.contains("hunter2"))

        // A server that does not answer: pg_dump's failure, without the password, and no file.
        let closed = try CumulusBinary.run(
            ["backup", "--to", directory.path + "/b"] + data + ["--database-url", "postgres://u:hunter2@127.0.0.1:1/x"])
        #expect(closed.status != 0 && closed.error.contains("pg_dump failed"))
        #expect(!closed.error.contains("hunter2"))
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("b") } == [])

        let nowhere = try CumulusBinary.run(
            ["backup", "--to", directory.path + "/missing/b"] + data + ["--database-url", "postgres://u:hunter2@127.0.0.1:1/x"])
        #expect(nowhere.status != 0 && nowhere.error.contains("does not exist"))

        let missing = try CumulusBinary.run(
            ["restore", "--from", directory.path + "/none.dump"] + data + ["--database-url", "postgres://u:hunter2@127.0.0.1:1/x"])
        #expect(missing.status != 0 && missing.error.contains("There is no backup at"))
        #expect(!missing.error.contains("hunter2"))

        let text = try directory.file("notes.txt", "hello")
        let notABackup = try CumulusBinary.run(
            ["restore", "--from", text] + data + ["--database-url", "postgres://u:hunter2@127.0.0.1:1/x"])
        #expect(notABackup.status != 0 && notABackup.error.contains("is not a backup"))

        // On SQLite, a directory that holds no store has nothing to back up, and no file is left.
        let onSQLite = try CumulusBinary.run(["backup", "--to", directory.path + "/b"] + data, environment: ["CUMULUS_DATABASE_URL": ""])
        #expect(onSQLite.status != 0 && onSQLite.error.contains("There is no cumulus data directory"), "\(onSQLite.error)")
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: directory.path).filter { $0.hasPrefix("b") || $0.hasPrefix(".cumulus") }
                == [])
    }
}
