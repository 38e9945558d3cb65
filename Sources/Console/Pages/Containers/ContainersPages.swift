import CloudKitWire
import CloudStore
import HTTPServer

/// The containers: the list with records and storage per environment, and creating one.
///
/// - `GET /console/containers`, `POST /console/containers` (create).
/// - `GET /console/containers/C`: the container's records in development.
struct ContainersPages: Sendable {
    let console: ConsolePages

    /// The templates these pages render.
    static let templates = ["console.containers"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        return [
            .get("/containers") { request in try pages.list(request) },
            .post("/containers") { request in try pages.create(request) },
            .get("/containers/:container") { request in
                .redirect(ConsoleLocation(container: request.path("container")).path(.records), nil)
            },
        ]
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let containers = try console.actions.containers(as: request.identity).containers.map { container -> [String: Any] in
            let environments = Environment.allCases.map { environment -> [String: Any] in
                let figures = container[environment]
                return [
                    "records": Formatting.count(figures.records),
                    "storage": Formatting.bytes(figures.storageBytes),
                ]
            }
            return [
                "identifier": container.identifier.rawValue,
                "url": ConsoleLocation(container: container.identifier.rawValue).path(.records),
                "development": environments[0], "production": environments[1],
                "created": Formatting.time(container.created, in: Formatting.timeZone(of: request.http)),
            ]
        }
        return .page(
            Page(
                "console.containers",
                context: [
                    "containers": containers, "hasContainers": !containers.isEmpty, "identifier": request.query("identifier") ?? "",
                    "storageDefinition": UsagePages.storageDefinition,
                ]))
    }

    private func create(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let identifier = (request.field("identifier") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(
            back: "/console/containers" + URLEncoding.query([("identifier", identifier)]),
            success: ConsoleLocation(container: identifier).path(.records)
        ) {
            _ = try console.actions.createContainer(identifier, as: request.identity)
            return "Container \(identifier) created."
        }
    }
}
