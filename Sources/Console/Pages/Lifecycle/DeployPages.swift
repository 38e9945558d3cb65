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
        let filling = Self.filling(request.query("filling"))
        let difference = try actions.schemaDifference(of: try location.identifier, filling: filling, as: request.identity)
        let guarded = try actions.schemaGuard(of: try location.identifier, as: request.identity)
        let findings = guarded.findings.map { finding -> [String: Any] in
            [
                "description": finding.description, "refusals": Formatting.count(Int64(finding.refusals)),
                "latest": finding.latestRequestIDs.map { ["requestID": $0] }, "changes": finding.changes.map { ["change": $0] },
            ]
        }
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
                    "findings": findings, "hasFindings": !findings.isEmpty,
                    "fillingURL": location.path(.deploy, query: [("filling", guarded.findings.map(\.gap).joined(separator: ","))]),
                    "filling": filling?.joined(separator: ",") ?? "", "isFilling": filling != nil,
                    "wholeURL": location.path(.deploy),
                ]))
    }

    private func deploy(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return try console.attempt(back: location.path(.deploy)) {
            let deployment = try actions.deploySchema(
                of: try location.identifier, filling: Self.filling(request.field("filling")), as: request.identity)
            return "Deployed \(Formatting.counted(Int64(deployment.changes.count), "change")) to production."
        }
    }

    /// The gaps a pre-filled deployment fills, comma-separated in the query or the form; `nil`
    /// for a deployment of all of development's schema.
    private static func filling(_ text: String?) -> [String]? {
        let gaps = (text ?? "").split(separator: ",").map(String.init)
        return gaps.isEmpty ? nil : gaps
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
