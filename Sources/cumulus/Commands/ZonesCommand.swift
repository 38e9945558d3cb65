import ArgumentParser
import CloudKitWire
import Console

/// `cumulus zones list|create|delete`: the zones of a database, as the console's Zones page
/// manages them.
struct ZonesCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "zones", abstract: "List, create and delete the zones of a database.",
        subcommands: [List.self, Create.self, Delete.self])

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a database's zones, with their records and sizes, as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var scope: DatabaseOptions

        func run() throws {
            printJSON(try management.client().json(.get, scope.path(target, ["zones"])))
        }
    }

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create a zone in a private database.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var scope: DatabaseOptions

        @Argument(help: "The zone's name.")
        var zone: String

        func run() throws {
            _ = try management.client().json(
                .post, scope.path(target, ["zones"]), body: ["zoneName": .string(zone)])
            print("Created zone \(zone)")
        }
    }

    struct Delete: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Delete a zone with every record in it.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions
        @OptionGroup var scope: DatabaseOptions

        @Argument(help: "The zone's name.")
        var zone: String

        func run() throws {
            _ = try management.client().json(
                .delete, scope.path(target, ["zones", zone]))
            print("Deleted zone \(zone)")
        }
    }
}
