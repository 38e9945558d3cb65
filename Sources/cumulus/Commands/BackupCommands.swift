import ArgumentParser
import CloudStore
import Foundation

/// `cumulus backup`: a consistent backup of the store's database, taken while servers run.
struct BackupCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "backup",
        abstract: "Back up the store to one file, while servers run.",
        discussion: """
            On SQLite (a data directory): copies the catalog, every environment and the request log with \
            SQLite's online backup, each one snapshot taken while servers keep writing, into one tar file \
            with a manifest (format version, cumulus version, time, each file's SHA-256). Asset blobs kept \
            in files are in it unless --without-assets; blobs in a bucket are backed up there. \
            On PostgreSQL: runs pg_dump (custom format) on the store's schemas, in one snapshot. \
            The password in --database-url reaches pg_dump through its environment, never its command line; \
            assets are not in it (back them up where they are kept). \
            The file is readable by its owner only: it holds the server secret and every credential.
            """)

    @OptionGroup var data: DataDirectoryOptions

    @Option(
        name: .customLong("to"),
        help: "The new file to write the backup to, or s3://BUCKET/KEY on the asset store's S3 server (--assets-endpoint) with its keys.")
    var file: String

    @Flag(name: .customLong("without-assets"), help: "Leave asset blobs out of a backup of a data directory.")
    var withoutAssets = false

    func run() throws {
        let configuration = try data.configuration(endpointServesBackups: file.lowercased().hasPrefix("s3://"))
        let options = BackupOptions(includeAssets: !withoutAssets, programVersion: CumulusVersion.current)
        let size: Int64
        if file.lowercased().hasPrefix("s3://") {
            let environment = ProcessInfo.processInfo.environment
            let (bucket, key): (S3AssetConfiguration, String)
            do {
                (bucket, key) = try AssetStorageSetting.object(
                    file, endpoint: data.assetsEndpoint ?? environment["CUMULUS_ASSETS_ENDPOINT"],
                    region: data.assetsRegion ?? environment["CUMULUS_ASSETS_REGION"], environment: environment)
            } catch {
                throw ValidationError(error.description)
            }
            size = try CloudStore.backUp(configuration, toObject: key, in: bucket, options: options)
        } else {
            try CloudStore.backUp(configuration, to: file, options: options)
            size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int64) ?? 0
        }
        print("Backed up \(configuration.database) to \(file) (\(size) bytes).")
    }
}

/// `cumulus restore`: replaces the store's database with a backup, expiring every older change token.
struct RestoreCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "restore",
        abstract: "Replace the store with a backup made by `cumulus backup`.",
        discussion: """
            On SQLite: stop the servers first (refused while any process has the data directory open). \
            The backup is unpacked inside the data directory and checked against its manifest (every file's \
            size and SHA-256) and with SQLite's integrity check before anything is replaced; then the catalog, \
            the request log and containers/ are swapped in, each by one rename, recorded first in a marker file so that \
            a restore killed during the swap is completed by the next restore or the next process opening the store. \
            On PostgreSQL: runs pg_restore and psql to replace the store's schemas in one transaction: when anything fails, \
            nothing changes. The restored store gets a new incarnation, so every change token issued before \
            the restore answers "change token expired" and devices fetch everything again instead of missing \
            changes (on both backends). Stop the servers first; start them again afterwards. pg_restore writes the backup out \
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
