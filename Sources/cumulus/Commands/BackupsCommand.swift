import ArgumentParser
import CloudStore
import Console
import Foundation

/// `cumulus backups list|take|download|delete`: the backups a server keeps in its backup
/// location, through the management API (a remote server with `--server`, or in this process on
/// the data directory, whose backup location is `--backup-to`).
struct BackupsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backups",
        abstract: "List, take, download and delete the backups a server keeps.",
        subcommands: [List.self, Take.self, Download.self, Delete.self])

    /// Where the backups are when the command works on a data directory here.
    struct Location: ParsableArguments {
        @Option(
            name: .customLong("backup-to"),
            help:
                "The backup location on a data directory here: a directory or s3://BUCKET/PREFIX (default: $CUMULUS_BACKUP_TO, else backups in the data directory)."
        )
        var backupTo: String?

        /// A client on the server or data directory, the latter with this backup location.
        func client(_ management: ManagementOptions) throws -> ManagementClient {
            let environment = ProcessInfo.processInfo.environment
            let backupTo = backupTo ?? environment["CUMULUS_BACKUP_TO"]
            return try management.client(endpointServesBackups: backupTo?.lowercased().hasPrefix("s3://") == true) { configuration in
                let data = management.data
                do {
                    var schedule = BackupSchedule(
                        location: try AssetStorageSetting.backupLocation(
                            backupTo ?? configuration.dataDirectory + "/backups",
                            endpoint: data.assetsEndpoint ?? environment["CUMULUS_ASSETS_ENDPOINT"],
                            region: data.assetsRegion ?? environment["CUMULUS_ASSETS_REGION"], environment: environment),
                        keep: Int(environment["CUMULUS_BACKUP_KEEP"] ?? "") ?? 7)
                    schedule.programVersion = CumulusVersion.current
                    configuration.backups = schedule
                } catch {
                    throw ValidationError("\(error)")
                }
            }
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the backups, newest first: time, size, manifest check, name.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Location

        func run() throws {
            let answer = try location.client(management).result(BackupsView.self, .get, ManagementPath("backups"))
            if answer.backups.isEmpty { print("No backups in \(answer.location). Take one with: cumulus backups take") }
            for backup in answer.backups {
                let created = ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(backup.created) / 1000))
                let manifest = backup.manifestOK.map { $0 ? "manifest ok" : "manifest DOES NOT MATCH" } ?? "manifest not checked"
                print([created, "\(backup.bytes) bytes", manifest, backup.name].joined(separator: "\t"))
            }
        }
    }

    struct Take: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Take a backup now into the backup location (the oldest beyond the kept number are deleted).")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Location

        func run() throws {
            let backup = try location.client(management).result(BackupView.self, .post, ManagementPath("backups"))
            print("Backed up to \(backup.name) (\(backup.bytes) bytes).")
        }
    }

    struct Download: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Download a backup into a new file (readable by its owner only).")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Location

        @Argument(help: "The backup's name, as `cumulus backups list` prints it.")
        var name: String

        @Option(name: .customLong("to"), help: "The new file to write it to.")
        var file: String

        func run() throws {
            guard !FileManager.default.fileExists(atPath: file) else { throw ValidationError("\(file) exists already: choose a new file") }
            let bytes = try location.client(management).bytes(.get, ManagementPath("backups", name))
            guard FileManager.default.createFile(atPath: file, contents: Data(bytes), attributes: [.posixPermissions: 0o600]) else {
                throw ValidationError("Cannot write \(file)")
            }
            print("Downloaded \(name) to \(file) (\(bytes.count) bytes).")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a backup from the backup location.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var location: Location

        @Argument(help: "The backup's name, as `cumulus backups list` prints it.")
        var name: String

        func run() throws {
            _ = try location.client(management).result(BackupDeletion.self, .delete, ManagementPath("backups", name))
            print("Deleted backup \(name).")
        }
    }
}
