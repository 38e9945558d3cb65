import ArgumentParser
import CloudKitWire
import Foundation

/// `cumulus containers create ID` and `cumulus containers list`, on the data directory or a
/// remote server (`--server`).
struct ContainersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "containers",
        abstract: "Create and list containers.",
        subcommands: [Create.self, List.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a container with its development and production environments.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The container identifier, such as iCloud.com.example.Notes.")
        var identifier: String

        func run() throws {
            let created = try management.client().json(.post, ManagementPath("containers"), body: ["identifier": .string(identifier)])
            print("Created container \(created["identifier"]?.stringValue ?? identifier) (development and production)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the containers, with their records per environment.")

        @OptionGroup var management: ManagementOptions

        func run() throws {
            let containers = try management.client().json(.get, ManagementPath("containers"))["containers"]?.arrayValue ?? []
            if containers.isEmpty {
                print("No containers. Create one with: cumulus containers create iCloud.com.example.App")
            }
            for container in containers {
                let records = ["development", "production"].map { environment in
                    "\(environment) \(container["environments"]?[environment]?["records"]?.int64Value(acceptingNumericString: false) ?? 0) records"
                }
                print("\(container["identifier"]?.stringValue ?? "")\tcreated \(CommandOutput.time(container["created"]))\t"
                      + records.joined(separator: ", "))
            }
        }
    }
}

/// How commands print what the management API answers.
enum CommandOutput {
    /// A time in milliseconds since 1970 as ISO 8601, `-` when absent.
    static func time(_ value: JSONValue?) -> String {
        guard let milliseconds = value?.int64Value(acceptingNumericString: true) else { return "-" }
        return ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
