import CloudKitWire
import CloudStore
import HTTPServer

/// Deploying development's schema to production: the difference first, each change with the
/// production records it touches and each refusal with its reason, a button that deploys, and
/// production's history (who deployed what, when).
///
/// Under `/console/containers/C/ENV/deploy`: `GET`, `POST` (deploy).
struct DeployPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.deploy"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/deploy"
        return [
            .get(base) { request in try pages.show(request) },
            .post(base) { request in try pages.deploy(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        let difference = try actions.schemaDifference(of: try location.identifier, as: request.identity)
        let changes = difference.changes.map { change -> [String: Any] in
            [
                "description": change.description, "kind": Self.label(change.kind),
                "records": change.productionRecords > 0 ? Formatting.count(change.productionRecords) : "",
            ]
        }
        let refusals = difference.refusals.map { ["reason": $0.reason] }
        let history = try actions.schemaDeployments(of: try location.identifier, as: request.identity).deployments
            .map { deployment -> [String: Any] in
                [
                    "deployed": Formatting.time(deployment.deployed, in: timeZone), "deployedBy": deployment.deployedBy,
                    "changes": deployment.changes.map { ["change": $0] }, "schema": deployment.schema,
                ]
            }
        return .page(
            Page(
                "console.deploy",
                context: [
                    "bar": location.bar(.deploy), "changes": changes, "hasChanges": !changes.isEmpty, "refusals": refusals,
                    "hasRefusals": !refusals.isEmpty, "canDeploy": difference.canDeploy, "action": location.path(.deploy),
                    "history": history, "hasHistory": !history.isEmpty, "timeZone": timeZone.identifier,
                    "schemaURL": ConsoleLocation(container: location.container).path(.schema),
                ]))
    }

    private func deploy(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return try console.attempt(back: location.path(.deploy)) {
            let deployment = try actions.deploySchema(of: try location.identifier, as: request.identity)
            return "Deployed \(Formatting.counted(Int64(deployment.changes.count), "change")) to production."
        }
    }

    private static func label(_ kind: String) -> String {
        switch kind {
        case "addRecordType": "new record type"
        case "addField": "new field"
        case "addIndex": "new index"
        case "removeIndex": "index removed"
        case "addRole": "new role"
        case "changeGrants": "grants changed"
        default: kind
        }
    }
}
