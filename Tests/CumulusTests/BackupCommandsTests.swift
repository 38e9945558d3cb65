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

    /// A backup written to a bucket with the asset store's S3 settings, listed, downloaded and
    /// restored into a fresh data directory through the commands.
    @Test(.enabled(if: TestBackend.isDefaultRun, "Backs up a data directory"))
    func aBackupInABucketIsListedDownloadedAndRestored() throws {
        let bucket = try S3TestServer.moto().makeBucket()
        let directory = try TemporaryDirectory()
        let data = ["--data-dir", directory.path + "/data"]
        let s3 = ["--assets-endpoint", bucket.endpoint]
        let keys = ["CUMULUS_ASSETS_ACCESS_KEY_ID": bucket.accessKeyID, "CUMULUS_ASSETS_SECRET_ACCESS_KEY": bucket.secretAccessKey]
        #expect(try CumulusBinary.run(["containers", "create", "iCloud.com.example.Kept"] + data).status == 0)
        let name = "cumulus-backup-20261129T061500.000Z.tar"
        let backup = try CumulusBinary.run(
            ["backup", "--to", "s3://\(bucket.bucket)/nightly/\(name)"] + data + s3, environment: keys)
        #expect(backup.status == 0, "\(backup.error)")
        #expect(!(backup.output + backup.error).contains(bucket.secretAccessKey))

        let location = ["--backup-to", "s3://\(bucket.bucket)/nightly"]
        let listed = try CumulusBinary.run(["backups", "list"] + location + data + s3, environment: keys)
        #expect(listed.status == 0 && listed.output.contains(name), "\(listed.error)")
        let file = directory.path + "/downloaded.tar"
        let download = try CumulusBinary.run(["backups", "download", name, "--to", file] + location + data + s3, environment: keys)
        #expect(download.status == 0, "\(download.error)")
        let restored = ["--data-dir", directory.path + "/restored"]
        #expect(try CumulusBinary.run(["restore", "--from", file] + restored).status == 0)
        #expect(try CumulusBinary.run(["containers", "list"] + restored).output.contains("iCloud.com.example.Kept"))

        // Without the keys, nothing is sent.
        let keyless = try CumulusBinary.run(["backup", "--to", "s3://\(bucket.bucket)/other.tar"] + data + s3)
        #expect(keyless.status != 0 && keyless.error.contains("CUMULUS_ASSETS_ACCESS_KEY_ID"))
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
