import CloudStore
import Foundation
import HTTPServer

/// `GET /`: what Cumulus is, where things live on this server, the containers it holds, and the
/// first commands a newcomer runs.
struct StartPage: Sendable {
    let store: CloudStore
    let pages: PageRenderer
    let configuration: ConsoleConfiguration

    /// The container the example commands name when the server has none yet.
    static let exampleContainer = "iCloud.com.example.Notes"

    /// Renders the page.
    func show(_ request: HTTPRequest) throws -> HTTPResponse {
        let containers: [ContainerInfo]
        do {
            containers = try store.containers()
        } catch {
            throw ConsoleError.internalError("Listing containers failed: \(error)")
        }
        let base = configuration.baseURL(for: request)
        let example = containers.first?.identifier.rawValue ?? Self.exampleContainer
        let listed: [[String: Any]] = containers.map { container in
            [
                "identifier": container.identifier.rawValue,
                "created": Self.day(container.created),
                "queryURL": "\(base)/database/1/\(container.identifier.rawValue)/development/public/records/query",
            ]
        }
        let commands = [
            "cumulus containers create \(example)",
            "cumulus tokens create --container \(example)",
            "cumulus users add --container \(example) NAME",
            "cumulus keys add --container \(example) --public-key FILE",
        ]
        return try pages.response(Page("start", context: [
            "baseURL": base,
            "containers": listed,
            "hasContainers": !listed.isEmpty,
            "exampleContainer": example,
            "commands": commands.map { ["command": $0] },
        ]))
    }

    /// `2026-11-22` for a time in milliseconds since 1970.
    private static func day(_ milliseconds: Int64) -> String {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withFullDate]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }
}
