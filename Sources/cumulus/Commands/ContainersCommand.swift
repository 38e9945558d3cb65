import ArgumentParser
import CloudStore
import Foundation

/// `cumulus containers create ID` and `cumulus containers list`.
struct ContainersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "containers",
        abstract: "Create and list containers.",
        subcommands: [Create.self, List.self]
    )

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a container with its development and production environments.")

        @OptionGroup var data: DataDirectoryOptions

        @Argument(help: "The container identifier, such as iCloud.com.example.Notes.")
        var identifier: String

        func run() throws {
            let store = try data.openStore()
            let container = try ContainerIdentifier(identifier)
            try store.createContainer(container)
            print("Created container \(container) (development and production)")
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the containers.")

        @OptionGroup var data: DataDirectoryOptions

        func run() throws {
            let containers = try data.openStore().containers()
            if containers.isEmpty {
                print("No containers. Create one with: cumulus containers create iCloud.com.example.App")
            }
            let formatter = ISO8601DateFormatter()
            for container in containers {
                let created = formatter.string(from: Date(timeIntervalSince1970: Double(container.created) / 1000))
                print("\(container.identifier)\tcreated \(created)")
            }
        }
    }
}
