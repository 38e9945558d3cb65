import ArgumentParser
import CloudStore
import Foundation

/// `cumulus backup`: a consistent backup of the store's database, taken while servers run.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the store's PostgreSQL database to a file.",
        discussion: """
            Runs pg_dump (custom format) on the store's schemas, in one snapshot: servers may keep running. \
            The password in --database-url reaches pg_dump through its environment, never its command line. \
            The file is readable by its owner only: it holds the server secret and every credential. \
            Assets are not in it; back them up where they are kept (the directory, or the bucket). \
            On SQLite, stop the server and copy the data directory instead.
            """)

    @OptionGroup var data: DataDirectoryOptions

    @Option(name: .customLong("to"), help: "The new file to write the backup to.")
    var file: String

    func run() throws {
        let configuration = try data.configuration()
        try CloudStore.backUp(configuration, to: file)
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        print("Backed up \(configuration.database) to \(file) (\(size) bytes).")
    }
}

/// `cumulus restore`: replaces the store's database with a backup, expiring every older change token.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the store's PostgreSQL database with a backup made by `cumulus backup`.",
        discussion: """
            Runs pg_restore and psql to replace the store's schemas in one transaction: when anything fails, \
            nothing changes. The restored store gets a new incarnation, so every change token issued before \
            the restore answers "change token expired" and devices fetch everything again instead of missing \
            changes. Stop the servers first; start them again afterwards. pg_restore writes the backup out \
            as SQL in the temporary directory ($TMPDIR) first: it needs room for the data uncompressed.
            """)

    @OptionGroup var data: DataDirectoryOptions

    @Option(name: .customLong("from"), help: "The backup file to restore.")
    var file: String

    func run() throws {
        let configuration = try data.configuration()
        let environments = try CloudStore.restore(configuration, from: file)
        print(
            "Restored \(file) into \(configuration.database): \(environments) environments. Change tokens issued before now have expired.")
    }
}
