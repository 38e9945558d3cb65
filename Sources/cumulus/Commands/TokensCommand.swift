import ArgumentParser
import CloudKitWire
import CloudStore
import Console

/// `cumulus tokens create|list|revoke`: the API tokens (`ckAPIToken`) of a container, on the
/// data directory or a remote server (`--server`).
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Create, list and revoke API tokens (ckAPIToken).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print it.")

        @OptionGroup var management: ManagementOptions
        @OptionGroup var target: ContainerOptions

        @Option(help: "A label for the token.")
        var name = "API token"

        @Option(
            name: .customLong("allowed-origin"),
            help:
                "An origin browsers may call from and sign-in may hand tokens to, such as https://app.example.com; repeat for more, or '*' for every origin. [default: none: only the sign-in callback and this server's pages]"
        )
        var allowedOrigins: [String] = []

        @Option(
            name: .customLong("sign-in-callback"),
            help: "Where web sign-in returns with ?ckWebAuthToken=… [default: postMessage to the opener]")
        var signInCallback: String?

        func run() throws {
            var body: JSONObject = [
                "environment": .string(target.environment.rawValue), "name": .string(name),
                "allowedOrigins": .array(allowedOrigins.map(JSONValue.string)),
            ]
            if let signInCallback { body["signInCallback"] = .string(signInCallback) }
            let token = try management.client().result(
                APITokenView.self, .post, ManagementPath("containers", target.container, "tokens"), body: .object(body))
            print(token.token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's API tokens.")

        @OptionGroup var management: ManagementOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws {
            let tokens = try management.client().result(APITokensView.self, .get, ManagementPath("containers", container, "tokens")).tokens
            if tokens.isEmpty { print("No API tokens. Create one with: cumulus tokens create --container \(container)") }
            for token in tokens {
                print(
                    [
                        token.token, token.environment.rawValue, token.name,
                        "origins: " + (token.allowedOrigins.isEmpty ? "(this server only)" : token.allowedOrigins.joined(separator: " ")),
                        "callback: " + (token.signInCallback ?? "-"),
                    ].joined(separator: "\t"))
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an API token: a running server refuses it from the next request on.")

        @OptionGroup var management: ManagementOptions

        @Argument(help: "The token, as `cumulus tokens list` prints it.")
        var token: String

        func run() throws {
            _ = try management.client().result(RevokedView.self, .delete, ManagementPath("tokens", token))
            print("Revoked API token \(token)")
        }
    }
}
