import CloudKitWire
import CloudStore
import HTTPServer

/// The console's operators, for owners: each with their role and the containers they are
/// limited to, a form to change both, a form to add an operator, and removal after a confirmation.
///
/// `GET /console/operators`, `POST` (add), `POST /console/operators/NAME/role`,
/// `POST /console/operators/NAME/remove`.
struct OperatorsPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.operators"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        return [
            .get("/operators") { request in try pages.list(request) },
            .post("/operators") { request in try pages.add(request) },
            .post("/operators/:operator/role") { request in try pages.setRole(request) },
            .post("/operators/:operator/remove") { request in try pages.remove(request) },
        ]
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let timeZone = Formatting.timeZone(of: request.http)
        let operators = try actions.operators(as: request.identity).operators.map { account -> [String: Any] in
            let path = "/console/operators/" + URLEncoding.component(account.name)
            return [
                "name": account.name, "added": Formatting.time(account.created, in: timeZone),
                "containers": account.containers.isEmpty ? "Every container" : account.containers.joined(separator: ", "),
                "containerField": account.containers.joined(separator: " "), "roleAction": path + "/role",
                "removeAction": path + "/remove", "roles": Self.roles(selected: account.role),
                "isSelf": account.name.lowercased() == request.identity.operatorName.lowercased(),
            ]
        }
        let containers = try actions.containers(as: request.identity).containers.map(\.identifier.rawValue)
        return .page(
            Page(
                "console.operators",
                context: [
                    "operators": operators, "newRoles": Self.roles(selected: OperatorRole.viewer.rawValue),
                    "knownContainers": containers.joined(separator: ", "), "hasContainers": !containers.isEmpty,
                    "roleSummaries": OperatorRole.allCases.map { ["role": $0.rawValue, "summary": $0.summary] },
                ]))
    }

    private func add(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        try console.attempt(back: "/console/operators") {
            let account = try actions.addOperator(
                (request.field("name") ?? "").trimmingCharacters(in: .whitespaces), password: request.field("password") ?? "",
                role: try OperatorRole(parsing: request.field("role") ?? ""), containers: Self.containers(request), as: request.identity)
            return "Operator \(account.name) added as \(account.access)."
        }
    }

    private func setRole(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        try console.attempt(back: "/console/operators") {
            let account = try actions.setOperatorRole(
                try OperatorRole(parsing: request.field("role") ?? ""), containers: Self.containers(request), of: request.path("operator"),
                as: request.identity)
            return "\(account.name) is now \(account.access)."
        }
    }

    private func remove(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let name = request.path("operator")
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Remove operator \(name)?",
                    message: "Their console sessions end and their management tokens stop working at once. It cannot be undone.",
                    action: request.http.path, button: "Remove operator", fields: [], cancelURL: "/console/operators"))
        }
        return try console.attempt(back: "/console/operators") {
            _ = try actions.removeOperator(name, as: request.identity)
            return "Operator \(name) removed."
        }
    }

    /// The containers a form names, separated by spaces or commas.
    private static func containers(_ request: ConsoleRequest) -> [String] {
        (request.field("containers") ?? "").split(whereSeparator: { $0 == " " || $0 == "," }).map(String.init)
    }

    /// The role picker's options, `selected` chosen.
    private static func roles(selected: String) -> [[String: Any]] {
        OperatorRole.allCases.map { ["value": $0.rawValue, "label": $0.rawValue.capitalized, "selected": $0.rawValue == selected] }
    }
}
