import ArgumentParser
import CloudKitWire
import Console

/// `cumulus security show|grants|roles|simulate`: an environment's security roles and grants,
/// as the console's Security page manages them.
struct SecurityCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "security", abstract: "Show and change the security roles and grants of an environment; simulate an access.",
        subcommands: [Show.self, Grants.self, CreateRole.self, DeleteRole.self, Simulate.self])

    struct Show: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Print the roles and each record type's grants as JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        func run() throws { printJSON(try management.client().json(.get, target.path(["security"]))) }
    }

    struct Grants: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace a record type's grants in development.",
            discussion: "For example: cumulus security grants --container C Note --grant _world=READ --grant _creator=READ,WRITE")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The record type.")
        var recordType: String

        @Option(help: "ROLE=PERMISSION,PERMISSION… (CREATE, READ, WRITE); repeat for each role. None leaves the type without grants.")
        var grant: [String] = []

        func run() throws {
            let grants = try grant.map { entry throws -> JSONValue in
                let parts = entry.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw ValidationError("--grant takes ROLE=PERMISSIONS, not '\(entry)'") }
                return [
                    "role": .string(String(parts[0])), "permissions": .array(parts[1].split(separator: ",").map { .string(String($0)) }),
                ]
            }
            _ = try management.client().json(
                .put, target.path(["security", "record-types", recordType, "grants"]), body: ["grants": .array(grants)])
            print("Set the grants of \(recordType)")
        }
    }

    struct CreateRole: ParsableCommand {
        static let configuration = CommandConfiguration(commandName: "create-role", abstract: "Declare a custom role in development.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The role's name.")
        var name: String

        func run() throws {
            _ = try management.client().json(.post, target.path(["security", "roles"]), body: ["name": .string(name)])
            print("Created role \(name)")
        }
    }

    struct DeleteRole: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "delete-role", abstract: "Delete a custom role in development, with its grants and assignments.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The role's name.")
        var name: String

        func run() throws {
            _ = try management.client().json(.delete, target.path(["security", "roles", name]))
            print("Deleted role \(name)")
        }
    }

    struct Simulate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Whether a user or role may create, read or write records of a type, and which grant decides; prints JSON.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Option(help: "A user (sign-in name or user record name) or a role (_world, _icloud, a custom role).")
        var subject: String

        @Option(help: "CREATE, READ or WRITE.")
        var permission: String

        @Option(name: .customLong("record-type"), help: "The record type.")
        var recordType: String

        @Option(name: .customLong("record-name"), help: "A record of the public database, for _creator's grants.")
        var recordName: String?

        func run() throws {
            var body: JSONObject = [
                "subject": .string(subject), "permission": .string(permission), "recordType": .string(recordType),
            ]
            if let recordName { body["recordName"] = .string(recordName) }
            printJSON(try management.client().json(.post, target.path(["security", "simulate"]), body: .object(body)))
        }
    }
}
