import CloudStore
import HTTPServer

/// `GET /`: what Cumulus is, where things live on this server, and the
/// first commands a newcomer runs.
struct StartPage: Sendable {
    let pages: PageRenderer
    let configuration: ConsoleConfiguration

    /// The container the example commands name.
    static let exampleContainer = "iCloud.com.example.Notes"

    /// Renders the page. It names no container: what a server holds is for its operators,
    /// who see it in the console.
    func show(_ request: HTTPRequest) throws -> HTTPResponse {
        let example = Self.exampleContainer
        let commands = [
            "cumulus operators add NAME",
            "cumulus containers create \(example)",
            "cumulus tokens create --container \(example)",
            "cumulus users add --container \(example) NAME",
        ]
        return try pages.response(
            Page(
                "start",
                context: [
                    "baseURL": configuration.baseURL(for: request),
                    "exampleContainer": example,
                    "commands": commands.map { ["command": $0] },
                ]))
    }
}
