import ArgumentParser
import CloudStore

/// `cumulus tokens create --container ID [--environment E]`: prints a new API token.
struct TokensCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "tokens", abstract: "Create and list API tokens (ckAPIToken).", subcommands: [Create.self, List.self])

    struct Create: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Create an API token and print it.")

        @OptionGroup var data: DataDirectoryOptions
        @OptionGroup var target: ContainerOptions

        @Option(help: "A label for the token.")
        var name = "API token"

        @Option(name: .customLong("allowed-origin"), help: "An origin browsers may call from, such as https://app.example.com; repeat for more. [default: any]")
        var allowedOrigins: [String] = []

        @Option(name: .customLong("sign-in-callback"), help: "Where web sign-in returns with ?ckWebAuthToken=… [default: postMessage to the opener]")
        var signInCallback: String?

        func run() throws {
            let token = try data.openStore().createAPIToken(
                try target.identifier(), target.environment, name: name,
                allowedOrigins: allowedOrigins.isEmpty ? ["*"] : allowedOrigins, signInCallback: signInCallback)
            print(token.token)
        }
    }

    struct List: ParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List a container's API tokens.")

        @OptionGroup var data: DataDirectoryOptions

        @Option(help: "The container identifier.")
        var container: String

        func run() throws {
            for token in try data.openStore().apiTokens(try ContainerIdentifier(container)) {
                print("\(token.token)\t\(token.environment)\t\(token.name)\torigins: \(token.allowedOrigins.joined(separator: " "))")
            }
        }
    }
}
