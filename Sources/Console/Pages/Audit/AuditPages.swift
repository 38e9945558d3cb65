import CloudKitWire
import CloudStore
import HTTPServer

/// The audit trail: every change an operator, a management token or the command line made,
/// newest first, filtered by operator, container and kind of action, paged; above it, the
/// accounts being guessed at, when there are any.
///
/// `GET /console/audit?operator=&container=&action=&before=`.
struct AuditPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The kinds of action the filter offers, as action prefixes with their labels.
    static let kinds: [(prefix: String, label: String)] = [
        ("record.", "Records"), ("record.read", "Reads of users' records"), ("zone.", "Zones"), ("schema.", "Schema and deployments"),
        ("environment.", "Resets"),
        ("user.", "App users"), ("token.", "API tokens"), ("key.", "Server keys"), ("container.", "Containers"),
        ("management-token.", "Management tokens"), ("operator.", "Operators"), ("secret.", "Server secret"),
    ]

    /// The templates these pages render.
    static let templates = ["console.audit"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        return [
            .get("/audit") { request in try pages.list(request) },
            .get("/audit/export") { request in try pages.export(request) },
        ]
    }

    /// The filtered trail as JSON lines, as the management API exports it.
    private func export(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let bytes = try actions.exportAuditTrail(
            operatorName: request.query("operator"), container: request.query("container"), action: request.query("action"),
            as: request.identity)
        var response = ManagementAPI.file(bytes, contentType: "application/x-ndjson; charset=utf-8")
        response.headers["Content-Disposition"] = "attachment; filename=\"audit.jsonl\""
        return .response(response)
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let timeZone = Formatting.timeZone(of: request.http)
        let operatorName = request.query("operator") ?? ""
        let container = request.query("container") ?? ""
        let action = request.query("action") ?? ""
        let answer = try actions.auditTrail(
            operatorName: operatorName, container: container, action: action, before: request.query("before"), as: request.identity)
        let entries = answer.entries.map { entry -> [String: Any] in
            [
                "time": Formatting.time(entry.time, in: timeZone), "actor": entry.actor, "action": entry.action,
                "container": entry.container ?? "", "environment": entry.environment ?? "", "target": entry.target,
                "client": entry.clientAddress ?? "",
            ]
        }
        let attacks = try actions.signInAttacks(as: request.identity).accounts.map { account -> [String: Any] in
            [
                "name": account.name, "container": account.container ?? "", "isOperator": account.isOperator, "failures": account.failures,
                "addresses": account.addresses, "lastFailure": Formatting.time(account.lastFailure, in: timeZone),
            ]
        }
        let containers = try actions.containers(as: request.identity).containers.map(\.identifier.rawValue)
        let filters: [(String, String?)] = [("operator", operatorName), ("container", container), ("action", action)]
        var context: [String: Any] = [
            "entries": entries, "hasEntries": !entries.isEmpty, "operator": operatorName, "timeZone": timeZone.identifier,
            "attacks": attacks, "hasAttacks": !attacks.isEmpty,
            "containers": containers.map { ["name": $0, "selected": $0 == container] },
            "kinds": Self.kinds.map { ["prefix": $0.prefix, "label": $0.label, "selected": $0.prefix == action] },
            "isFiltered": !(operatorName.isEmpty && container.isEmpty && action.isEmpty),
        ]
        context["exportURL"] = "/console/audit/export" + URLEncoding.query(filters.filter { !($0.1 ?? "").isEmpty })
        if let next = answer.next {
            context["olderURL"] = "/console/audit" + URLEncoding.query(filters.filter { !($0.1 ?? "").isEmpty } + [("before", next)])
        }
        if request.query("before") != nil {
            context["newestURL"] = "/console/audit" + URLEncoding.query(filters.filter { !($0.1 ?? "").isEmpty })
        }
        return .page(Page("console.audit", context: context))
    }
}
