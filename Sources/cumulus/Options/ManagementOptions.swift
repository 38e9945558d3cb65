import ArgumentParser
import CloudStore
import Console
import Foundation

/// Where a command's management actions run: a remote server (`--server URL`, or
/// `CUMULUS_SERVER`) with the management token in `CUMULUS_MANAGEMENT_TOKEN`, else the data
/// directory on this machine.
struct ManagementOptions: ParsableArguments {
    @OptionGroup var data: DataDirectoryOptions

    @Option(
        help: ArgumentHelp(
            "A Cumulus server to manage through its management API, such as https://cloud.example.com. [default: $CUMULUS_SERVER, else the data directory]",
            discussion:
                "The management token is read from CUMULUS_MANAGEMENT_TOKEN (make one with `cumulus operators token NAME` or on the console's Management tokens page)."
        ))
    var server: String?

    /// The environment variable holding the management token for `--server`.
    static let tokenVariable = "CUMULUS_MANAGEMENT_TOKEN"

    func validate() throws {
        if server != nil, data.dataDirectory != nil {
            throw ValidationError("Give --server or --data-dir, not both: a command manages a remote server or a local data directory.")
        }
    }

    /// The client for the chosen server or data directory; `configure` makes last changes to
    /// the configuration of a store opened here.
    func client(endpointServesBackups: Bool = false, configure: (inout CloudStoreConfiguration) throws -> Void = { _ in }) throws
        -> ManagementClient
    {
        let environment = ProcessInfo.processInfo.environment
        guard let server = server ?? (data.dataDirectory == nil ? environment["CUMULUS_SERVER"].flatMap { $0.isEmpty ? nil : $0 } : nil)
        else {
            var configuration = try data.configuration(endpointServesBackups: endpointServesBackups)
            try configure(&configuration)
            return ManagementClient(transport: .local(Console.localManagementAPI(store: try CloudStore(configuration: configuration))))
        }
        guard let url = URL(string: server), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https", url.host != nil
        else {
            throw ValidationError("--server takes the server's URL, such as https://cloud.example.com")
        }
        guard let token = environment[Self.tokenVariable], !token.isEmpty else {
            throw ManagementFailure(
                description:
                    "Set \(Self.tokenVariable) to a management token to manage \(server) (make one with `cumulus operators token NAME` on the server, or on the console's Management tokens page)."
            )
        }
        return ManagementClient(transport: .remote(base: url, token: token))
    }
}
