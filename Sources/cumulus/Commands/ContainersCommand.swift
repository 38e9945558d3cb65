import ArgumentParser
import CloudKitWire
import CloudStore
import Console
import Foundation

/// `cumulus containers create ID` and `cumulus containers list`, on the data directory or a
/// remote server (`--server`).
struct ContainersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "containers",
        abstract: "Create, list and show containers.",
        subcommands: [Create.self, List.self, Show.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a container with its development and production environments.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The container identifier, such as iCloud.com.example.Notes.")
        var identifier: String

        func run() throws {
            let created = try management.client().result(
                ContainerView.self, .post, ManagementPath("containers"), body: ["identifier": .string(identifier)])
            print("Created container \(created.identifier) (development and production)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the containers, with their records per environment.")

        @OptionGroup var management: ManagementOptions

        func run() throws {
            let containers = try management.client().result(ContainersView.self, .get, ManagementPath("containers")).containers
            if containers.isEmpty {
                print("No containers. Create one with: cumulus containers create iCloud.com.example.App")
            }
            for container in containers {
                let records = Environment.allCases.map { environment in "\(environment) \(container[environment].records) records" }
                print("\(container.identifier)\tcreated \(CommandOutput.time(container.created))\t" + records.joined(separator: ", "))
            }
        }
    }

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print a container's environments, credentials and settings as JSON.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The container identifier.")
        var identifier: String

        func run() throws { printJSON(try management.client().json(.get, ManagementPath("containers", identifier))) }
    }
}

/// How commands print what the management API answers.
enum CommandOutput {
    /// A time in milliseconds since 1970 as ISO 8601, `-` when absent.
    static func time(_ value: JSONValue?) -> String {
        guard let milliseconds = value?.int64Value(acceptingNumericString: true) else { return "-" }
        return time(milliseconds)
    }

    /// A time in milliseconds since 1970 as ISO 8601.
    static func time(_ milliseconds: Int64) -> String {
        ISO8601DateFormatter().string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
