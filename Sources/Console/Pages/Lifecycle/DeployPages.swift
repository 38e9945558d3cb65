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
        let difference = try actions.schemaDifference(of: location.container, as: request.identity)
        let changes = (difference["changes"]?.arrayValue ?? []).map { change -> [String: Any] in
            let records = change["productionRecords"]?.int64Value(acceptingNumericString: false) ?? 0
            return [
                "description": change["description"]?.stringValue ?? "", "kind": Self.label(change["kind"]?.stringValue ?? ""),
                "records": records > 0 ? Formatting.count(records) : "",
            ]
        }
        let refusals = (difference["refusals"]?.arrayValue ?? []).map { ["reason": $0["reason"]?.stringValue ?? ""] }
        let history = (try actions.schemaDeployments(of: location.container, as: request.identity)["deployments"]?.arrayValue ?? [])
            .map { deployment -> [String: Any] in
                [
                    "deployed": Formatting.time(deployment["deployed"]?.int64Value(acceptingNumericString: false) ?? 0, in: timeZone),
                    "deployedBy": deployment["deployedBy"]?.stringValue ?? "",
                    "changes": (deployment["changes"]?.arrayValue ?? []).map { ["change": $0.stringValue ?? ""] },
                    "schema": deployment["schema"]?.stringValue ?? "",
                ]
            }
        return .page(Page("console.deploy", context: [
            "bar": location.bar(.deploy), "changes": changes, "hasChanges": !changes.isEmpty, "refusals": refusals,
            "hasRefusals": !refusals.isEmpty, "canDeploy": difference["canDeploy"] == true, "action": location.path(.deploy),
            "history": history, "hasHistory": !history.isEmpty, "timeZone": timeZone.identifier,
            "schemaURL": ConsoleLocation(container: location.container).path(.schema),
        ]))
    }

    private func deploy(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return try console.attempt(back: location.path(.deploy)) {
            let deployment = try actions.deploySchema(of: location.container, as: request.identity)
            return "Deployed \(Formatting.counted(Int64(deployment["changes"]?.arrayValue?.count ?? 0), "change")) to production."
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
