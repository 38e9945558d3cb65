import ArgumentParser

/// `--database public|private|shared` and `--user NAME`: which database of an environment a
/// command reaches, and whose for a private or shared one.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "public, private or shared.")
    var database = "public"

    @Option(help: "The user whose private or shared database it is: sign-in name or user record name.")
    var user: String?

    /// The management path's segments up to the database: `containers/C/E/D`.
    func segments(_ target: ContainerOptions) -> [String] {
        ["containers", target.container, target.environment.rawValue, database]
    }

    /// The `user` query parameter, when one was given.
    var query: [(String, String?)] { [("user", user)] }
}
