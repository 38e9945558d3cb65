import ArgumentParser
import CloudStore
import Foundation

/// `--data-dir`, shared by every command: the flag wins over `CUMULUS_DATA_DIR`, which wins over `./data`.
struct DataDirectoryOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory (default: $CUMULUS_DATA_DIR, else ./data).")
    var dataDirectory: String?

    /// The directory to use.
    var resolved: String {
        dataDirectory ?? ProcessInfo.processInfo.environment["CUMULUS_DATA_DIR"] ?? "./data"
    }

    /// Opens the store in the resolved directory.
    func openStore() throws -> CloudStore {
        try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: resolved))
    }
}
