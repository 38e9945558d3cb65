import ArgumentParser
import CloudStore
import Console
import Foundation

/// `--data-dir`, shared by every command: the flag wins over `CUMULUS_DATA_DIR`, which wins over
/// `./data`; and where asset blobs are, as ``AssetStorageSetting`` reads it, so that a command
/// removing blobs removes them where the server keeps them.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory (default: $CUMULUS_DATA_DIR, else ./data).")
    var dataDirectory: String?

    @Option(
        name: .customLong("assets"),
        help: ArgumentHelp(
            "Where asset blobs are: a directory or s3://BUCKET (default: $CUMULUS_ASSETS, else the data directory).",
            discussion:
                "A bucket takes --assets-endpoint and its keys from CUMULUS_ASSETS_ACCESS_KEY_ID and CUMULUS_ASSETS_SECRET_ACCESS_KEY."))
    var assets: String?

    @Option(
        name: .customLong("assets-endpoint"),
        help: "The S3 server of --assets s3://BUCKET, http://host:port (default: $CUMULUS_ASSETS_ENDPOINT).")
    var assetsEndpoint: String?

    @Option(
        name: .customLong("assets-region"), help: "The region S3 requests are signed for (default: $CUMULUS_ASSETS_REGION, else us-east-1)."
    )
    var assetsRegion: String?

    @Option(
        name: .customLong("database-url"),
        help:
            "The PostgreSQL database several servers share, postgres://… (default: $CUMULUS_DATABASE_URL, else SQLite files in the data directory)."
    )
    var database: String?

    /// Refuses `command`, which works on the store here and never through a server, when
    /// `CUMULUS_SERVER` is set and nothing names the store: it would act on `./data` while its
    /// user meant the server.
    func requireStoreHere(for command: String) throws {
        let set = { (name: String) in ProcessInfo.processInfo.environment[name].map { !$0.isEmpty } == true }
        guard set("CUMULUS_SERVER"), dataDirectory == nil, database == nil, !set("CUMULUS_DATA_DIR"), !set("CUMULUS_DATABASE_URL")
        else { return }
        throw ValidationError(
            "`cumulus \(command)` works on the store on this machine, not through a server, and CUMULUS_SERVER is set: name the store "
                + "with --data-dir (or $CUMULUS_DATA_DIR) or --database-url, or use the console's Management tokens page")
    }

    /// The directory to use.
    var resolved: String {
        dataDirectory ?? ProcessInfo.processInfo.environment["CUMULUS_DATA_DIR"] ?? "./data"
    }

    /// Where asset blobs are, from the flags, else the environment.
    func assetStorage(endpointServesBackups: Bool = false) throws -> AssetStorage {
        let environment = ProcessInfo.processInfo.environment
        do {
            return try AssetStorageSetting.resolve(
                location: assets ?? environment["CUMULUS_ASSETS"], endpoint: assetsEndpoint ?? environment["CUMULUS_ASSETS_ENDPOINT"],
                region: assetsRegion ?? environment["CUMULUS_ASSETS_REGION"], environment: environment,
                endpointServesBackups: endpointServesBackups)
        } catch {
            throw ValidationError(error.description)
        }
    }

    /// The store's configuration: the resolved directory, database and assets.
    /// `endpointServesBackups`: the S3 endpoint may be given for a bucket of backups alone.
    func configuration(endpointServesBackups: Bool = false) throws -> CloudStoreConfiguration {
        var configuration = CloudStoreConfiguration(dataDirectory: resolved)
        configuration.assetStorage = try assetStorage(endpointServesBackups: endpointServesBackups)
        do {
            configuration.database = try DatabaseSetting.resolve(database ?? ProcessInfo.processInfo.environment["CUMULUS_DATABASE_URL"])
        } catch {
            throw ValidationError("--database-url: \(error.description)")
        }
        // A command serves no requests: it must not take a share of the servers' request rates.
        configuration.heartbeatInterval = nil
        return configuration
    }

    /// Opens the store in the resolved directory.
    func openStore() throws -> CloudStore {
        try CloudStore(configuration: configuration())
    }

    /// The management actions on the store in the resolved directory: changes the command line
    /// makes through them join the audit trail, as the API's do.
    func actions() throws -> ManagementActions {
        ManagementActions(store: try openStore())
    }
}
