import ArgumentParser
import CloudKitWire
import CloudStore
import Console
import Foundation

/// `cumulus users add|list|remove|password|discoverable|sign-out|roles|token|export|erase`: the users who sign in to a
/// container's apps. Passwords are read from standard input, never from the command line.
struct UsersCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "users", abstract: "Manage the users who sign in to a container's apps.",
        subcommands: [
            Add.self, List.self, Remove.self, Password.self, Discoverable.self, SignOut.self, Roles.self, Token.self, Export.self,
            Erase.self,
        ])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user; the password is read from standard input (one line).",
            discussion: "For example: printf '%s\\n' 'a long passphrase' | cumulus users add --container iCloud.com.example.Notes alice")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with.")
        var name: String

        @Option(help: "The user's email address.")
        var email: String?

        @Option(name: .customLong("first-name"), help: "Given name. [default: the sign-in name]")
        var firstName: String?

        @Option(name: .customLong("last-name"), help: "Family name.")
        var lastName: String?

        func run() throws {
            let password = try readPassword(for: "users add")
            var body: JSONObject = ["name": .string(name), "password": .string(password)]
            if let email { body["emailAddress"] = .string(email) }
            if let firstName { body["firstName"] = .string(firstName) }
            if let lastName { body["lastName"] = .string(lastName) }
            let user = try management.client().result(
                UserView.self, .post, ManagementPath("containers", container, "users"), body: .object(body))
            print(user.userRecordName)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's users.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Option(help: "Only users whose name, email address or user record name contains this.")
        var search: String?

        func run() throws {
            let path = ManagementPath("containers", container, "users", query: search.map { [("search", $0)] } ?? [])
            let users = try management.client().result(UsersView.self, .get, path).users
            if users.isEmpty, search == nil {
                print("No users. Add one with: printf '%s\\n' 'a long passphrase' | cumulus users add --container \(container) NAME")
            }
            for user in users {
                let sessions = user.openSessions
                print(
                    [
                        user.userRecordName, user.name, user.emailAddress ?? "-", "\(sessions) open session\(sessions == 1 ? "" : "s")",
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove a user: they can no longer sign in and their sessions end at once. Their records stay.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        func run() throws {
            let removed = try management.client().result(UserRemoval.self, .delete, ManagementPath("containers", container, "users", user))
            print("Removed \(user) (\(removed.removed))")
        }
    }

    struct Password: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a user's password, read from standard input; it signs them out everywhere.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        func run() throws {
            let password = try readPassword(for: "users password")
            _ = try management.client().result(
                UserView.self, .post, ManagementPath("containers", container, "users", user, "password"),
                body: ["password": .string(password)])
            print("Set the password of \(user); their sessions have ended")
        }
    }

    struct Discoverable: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Let others find a user by email address or record name (users/discover, users/lookup), or with --off no longer.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        @Flag(help: "Make the user no longer discoverable.")
        var off = false

        func run() throws {
            _ = try management.client().result(
                UserView.self, .post, ManagementPath("containers", container, "users", user, "discoverable"),
                body: ["discoverable": .bool(!off)])
            print(off ? "\(user) is no longer discoverable" : "\(user) is discoverable")
        }
    }

    struct SignOut: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "sign-out", abstract: "End every session of a user at once, on every device.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        func run() throws {
            let ended = try management.client().result(
                SignOutOutcome.self, .post, ManagementPath("containers", container, "users", user, "sign-out")
            ).endedSessions
            print("Signed \(user) out: \(ended) session\(ended == 1 ? "" : "s") ended")
        }
    }

    struct Export: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Write everything a user created or owns (records of every database, subscriptions, asset files) to a tar archive.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        @Option(help: "Only this environment (development or production). [default: both]")
        var environment: String?

        @Option(help: "The archive to write.")
        var to: String

        func run() throws {
            let path = ManagementPath(
                segments: ["containers", container, "users", user, "export"], query: [("environment", environment)])
            let bytes = try management.client().bytes(.get, path)
            guard FileManager.default.createFile(atPath: to, contents: Data(bytes)) else {
                throw ValidationError("Cannot write \(to)")
            }
            print("Wrote \(bytes.count) bytes to \(to)")
        }
    }

    struct Erase: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Erase a user: their private database, shares, public records, subscriptions, push tokens, sessions and account.",
            discussion: """
                Run with --dry-run first to see what would go. Their request log entries keep an anonymous id. For example:
                cumulus users erase --container iCloud.com.example.Notes alice --dry-run
                """)

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        @Option(help: "Only this environment (development or production); the account stays. [default: both]")
        var environment: String?

        @Option(help: "Give the user's public records of a type to another user instead of deleting them: TYPE=USER (repeatable).")
        var reassign: [String] = []

        @Flag(name: .customLong("dry-run"), help: "Only count what would go; change nothing.")
        var dryRun = false

        func run() throws {
            var map = JSONObject()
            for pair in reassign {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2 else { throw ValidationError("--reassign takes TYPE=USER, not '\(pair)'") }
                map[parts[0]] = .string(parts[1])
            }
            var body: JSONObject = ["dryRun": .bool(dryRun), "reassign": .object(map)]
            if let environment { body["environment"] = .string(environment) }
            printJSON(
                try management.client().json(.post, ManagementPath("containers", container, "users", user, "erase"), body: .object(body)))
        }
    }

    struct Roles: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show, give and take a user's custom security roles (declared with CREATE ROLE in the schema).",
            discussion: "For example: cumulus users roles --container iCloud.com.example.Notes alice --add Moderator")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Argument(help: "The name the user signs in with, or their user record name.")
        var user: String

        @Option(help: "A role to give; repeat for more.")
        var add: [String] = []

        @Option(help: "A role to take away; repeat for more.")
        var remove: [String] = []

        func run() throws {
            let client = try management.client()
            let environment = target.environment.rawValue
            let found = try client.result(
                UsersView.self, .get, ManagementPath("containers", target.container, "users", query: [("search", user)])
            )
            .users.first { $0.name.lowercased() == user.lowercased() || $0.userRecordName == user }
            guard let found else {
                throw ValidationError(
                    "No user '\(user)' in \(target.container); `cumulus users list --container \(target.container)` lists them")
            }
            let recordName = found.userRecordName
            let name = found.name
            var roles = Set(found.roles[target.environment] ?? [])
            if !add.isEmpty || !remove.isEmpty {
                roles.formUnion(add)
                roles.subtract(remove)
                let answer = try client.result(
                    UserRolesView.self, .put, ManagementPath("containers", target.container, environment, "users", recordName, "roles"),
                    body: ["roles": .array(roles.sorted().map(JSONValue.string))])
                roles = Set(answer.roles)
            }
            print(
                roles.isEmpty
                    ? "\(name) holds no custom roles in \(target.environment)"
                    : "\(name) holds in \(target.environment): \(roles.sorted().joined(separator: ", "))")
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Sign a user in and print a web auth token (ckWebAuthToken), for scripts; the password is read from standard input.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        @Option(help: "The environment the token is for (development or production): it works there only.")
        var environment: Environment = .development

        @Argument(help: "The name the user signs in with.")
        var name: String

        @Flag(name: .customLong("keep-signed-in"), help: "Make the token last two weeks instead of 30 minutes.")
        var keepSignedIn = false

        func run() throws {
            let password = try readPassword(for: "users token")
            let signedIn = try data.openStore().signIn(
                try ContainerIdentifier(container), environment, name: name, password: password, keepSignedIn: keepSignedIn)
            print(signedIn.webAuthToken)
        }
    }
}
