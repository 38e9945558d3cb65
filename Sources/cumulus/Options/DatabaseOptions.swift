import ArgumentParser

/// `--database public|private|shared` and `--user NAME`: which database of an environment a
/// command reaches, and whose for a private or shared one.
struct DatabaseOptions: ParsableArguments {
    @Option(help: "public, private or shared.")
    var database = "public"

    @Option(help: "The user whose private or shared database it is: sign-in name or user record name.")
    var user: String?

    /// The management path of `segments` under the database, for the user given:
    /// `containers/C/E/D/…?user=U`.
    func path(_ target: ContainerOptions, _ segments: [String], query: [(String, String?)] = []) -> ManagementPath {
        target.path([database] + segments, query: [("user", user)] + query)
    }
}
