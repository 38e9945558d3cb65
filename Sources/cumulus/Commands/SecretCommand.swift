import ArgumentParser
import CloudStore
import Console

/// `cumulus secret rotate`: replaces the server secret that seals web auth tokens, continuation
/// markers and sync tokens.
struct SecretCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "secret", abstract: "Manage the server secret that seals tokens.", subcommands: [Rotate.self])

    struct Rotate: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Replace the server secret. Stop the server first; start it again afterwards.",
            discussion: """
                Every web auth token, continuation marker and sync token made with the old secret stops \
                working: users sign in again (their apps get 421 AUTHENTICATION_REQUIRED) and clients start \
                their queries and change feeds over. Sessions, API tokens, server-to-server keys and data stay. \
                A server still running on the directory keeps using the old secret until it restarts.
                """)

        @OptionGroup var data: DataDirectoryOptions

        func run() throws {
            _ = try data.actions().rotateSecret(as: .local)
            print("Rotated the server secret of \(data.resolved). Start (or restart) the server now; users sign in again.")
        }
    }
}
