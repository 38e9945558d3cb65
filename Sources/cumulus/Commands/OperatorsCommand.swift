import ArgumentParser
import CloudKitWire
import CloudStore
import Console
import Foundation

/// `cumulus operators add|list|remove|password|token|tokens|revoke-token`: the accounts that sign
/// in to the console and the management tokens scripts use. They act on the data directory, so
/// only someone with the server's files can make the first operator. Each change runs the
/// management action the API runs and joins the audit trail as the local command line.
struct OperatorsCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "operators", abstract: "Manage console operators and their management tokens.",
        subcommands: [Add.self, List.self, SetRole.self, Remove.self, Password.self, Token.self, Tokens.self, RevokeToken.self])

    struct Add: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add an operator; the password is read from standard input (one line).",
            discussion:
                "For example: printf '%s\\n' 'a long passphrase' | cumulus operators add alice --role developer --container iCloud.com.example.Notes"
        )

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The name the operator signs in to the console with.")
        var name: String

        @OptionGroup var access: AccessOptions

        func run() throws {
            var body = access.body
            body["name"] = .string(name)
            body["password"] = .string(try readPassword(for: "operators add"))
            let account = try management.client().result(OperatorView.self, .post, ManagementPath("operators"), body: .object(body))
            // An owner of every container, the default, is said as before roles.
            let role =
                account.role == OperatorRole.owner.rawValue && account.containers.isEmpty ? "" : " (\(account.access))"
            print("Added operator \(account.name)\(role); sign in at /console/")
        }
    }

    struct SetRole: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "set-role", abstract: "Give an operator a role and the containers they are limited to (none: every container).",
            discussion: "Their sessions and tokens act with the new role from their next request on.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The operator's name.")
        var name: String

        @OptionGroup var access: AccessOptions

        func run() throws {
            let account = try management.client().result(
                OperatorView.self, .put, ManagementPath("operators", name, "role"), body: .object(access.body))
            print("\(account.name) is now \(account.access)")
        }
    }

    /// `--role` and `--container`, as `add` and `set-role` take them.
    struct AccessOptions: ParsableArguments {
        @Option(
            help:
                "What the operator may do: owner (everything), developer (development, and reading production; no credentials or operators) or viewer (reads schema, logs, usage and the public database)."
        )
        var role = "owner"

        @Option(
            name: .customLong("container"), help: "A container the operator is limited to; repeat for several. [default: every container]")
        var containers: [String] = []

        /// The body of the management request.
        var body: JSONObject { ["role": .string(role), "containers": .array(containers.map(JSONValue.string))] }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the operators.")

        @OptionGroup var management: ManagementOptions

        func run() throws {
            let operators = try management.client().result(OperatorsView.self, .get, ManagementPath("operators")).operators
            if operators.isEmpty { print(OperatorsCommand.firstOperatorHint) }
            for account in operators {
                let added = Date(timeIntervalSince1970: Double(account.created) / 1000).formatted(.iso8601)
                let containers = account.containers.isEmpty ? "every container" : account.containers.joined(separator: " ")
                print("\(account.name)\tadded \(added)\t\(account.role)\t\(containers)")
            }
        }
    }

    struct Remove: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Remove an operator: their console sessions end and their management tokens stop working at once.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The operator's name.")
        var name: String

        func run() throws {
            _ = try management.client().result(OperatorChangeView.self, .delete, ManagementPath("operators", name))
            print("Removed operator \(name)")
        }
    }

    struct Password: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set an operator's password (read from standard input); their console sessions end.")

        @OptionGroup var data: DataDirectoryOptions

        @Argument(help: "The operator's name.")
        var name: String

        func run() throws {
            let password = try readPassword(for: "operators password")
            _ = try data.actions().setOperatorPassword(password, of: name, as: .local)
            print("Set the password of \(name); their console sessions have ended")
        }
    }

    struct Token: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Create a management token for an operator and print it (shown only once).",
            discussion:
                "Scripts send it as `Authorization: Bearer …` to /admin/v1/, and `cumulus --server URL` reads it from CUMULUS_MANAGEMENT_TOKEN."
        )

        @OptionGroup var data: DataDirectoryOptions

        @Argument(help: "The operator the token acts as.")
        var operatorName: String

        @Option(help: "A label for the token, such as the script or machine that uses it.")
        var name = "management token"

        func validate() throws { try data.requireStoreHere(for: "operators token") }

        func run() throws {
            print(try data.actions().createManagementToken(for: operatorName, name: name, as: .local).secret ?? "")
        }
    }

    struct Tokens: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List the management tokens (not their secrets).")

        @OptionGroup var data: DataDirectoryOptions

        func validate() throws { try data.requireStoreHere(for: "operators tokens") }

        func run() throws {
            let tokens = try data.openStore().managementTokens()
            if tokens.isEmpty { print("No management tokens. Create one with: cumulus operators token NAME") }
            for token in tokens {
                let used = token.lastUsed.map { Date(timeIntervalSince1970: Double($0) / 1000).formatted(.iso8601) } ?? "never used"
                print("\(token.id)\t\(token.operatorName)\t\(token.name)\t\(used)")
            }
        }
    }

    struct RevokeToken: ParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "revoke-token", abstract: "Revoke a management token: a running server refuses it from the next request on.")

        @OptionGroup var data: DataDirectoryOptions

        @Argument(help: "The token's id, as `cumulus operators tokens` prints it.")
        var id: String

        func validate() throws { try data.requireStoreHere(for: "operators revoke-token") }

        func run() throws {
            _ = try data.actions().revokeManagementToken(id, as: .local)
            print("Revoked management token \(id)")
        }
    }

    /// What to do when there is no operator yet; `serve` prints it at a first start.
    static let firstOperatorHint =
        "No console operator yet. Create one with: printf '%s\\n' 'a long passphrase' | cumulus operators add NAME"
}
