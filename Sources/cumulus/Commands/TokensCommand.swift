import ArgumentParser
import CloudStore

/// `cumulus tokens create|list|revoke`: the API tokens (`ckAPIToken`) of a container.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Create, list and revoke API tokens (ckAPIToken).",
        subcommands: [Create.self, List.self, Revoke.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print it.")

        @OptionGroup var data: DataDirectoryOptions
        @OptionGroup var target: ContainerOptions

        @Option(help: "A label for the token.")
        var name = "API token"

        @Option(name: .customLong("allowed-origin"), help: "An origin browsers may call from and sign-in may hand tokens to, such as https://app.example.com; repeat for more, or '*' for every origin. [default: none: only the sign-in callback and this server's pages]")
        var allowedOrigins: [String] = []

        @Option(name: .customLong("sign-in-callback"), help: "Where web sign-in returns with ?ckWebAuthToken=… [default: postMessage to the opener]")
        var signInCallback: String?

        func run() throws {
            let token = try data.openStore().createAPIToken(
                try target.identifier(), target.environment, name: name,
                allowedOrigins: allowedOrigins, signInCallback: signInCallback)
            print(token.token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's API tokens.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws {
            let tokens = try data.openStore().apiTokens(try ContainerIdentifier(container))
            if tokens.isEmpty { print("No API tokens. Create one with: cumulus tokens create --container \(container)") }
            for token in tokens {
                let origins = token.allowedOrigins.isEmpty ? "(this server only)" : token.allowedOrigins.joined(separator: " ")
                print("\(token.token)\t\(token.environment)\t\(token.name)\torigins: \(origins)\tcallback: \(token.signInCallback ?? "-")")
            }
        }
    }

    struct Revoke: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Revoke an API token: a running server refuses it from the next request on.")

        @OptionGroup var data: DataDirectoryOptions

        @Argument(help: "The token, as `cumulus tokens list` prints it.")
        var token: String

        func run() throws {
            try data.openStore().revokeAPIToken(token)
            print("Revoked API token \(token)")
        }
    }
}
