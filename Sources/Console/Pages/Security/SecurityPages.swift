import CloudKitWire
import CloudStore
import HTTPServer

/// Security roles of the public database: the matrix of roles × record types × CREATE, READ
/// and WRITE, editable in development (a form per record type), custom roles created and
/// deleted, users given and taken roles; and the permission simulator, which answers allowed
/// or denied with the grant or rule that decided, from the code that enforces it.
///
/// Under `/console/containers/C/ENV/security`: `GET` (with the simulator's question in the
/// query), `POST /grants`, `POST /roles`, `POST /roles/R/delete`, `POST /holders`.
struct SecurityPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.security"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/security"
        return [
            .get(base) { request in try pages.show(request) },
            .post(base + "/grants") { request in try pages.saveGrants(request) },
            .post(base + "/roles") { request in try pages.createRole(request) },
            .post(base + "/roles/:role/delete") { request in try pages.deleteRole(request) },
            .post(base + "/holders") { request in try pages.setHolder(request) },
        ]
    }

    private func show(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let security = try actions.security(of: try location.identifier, environment: location.environment, as: request.identity)
        let editable = security.editable
        let custom = security.roles
        let roles = security.systemRoles + custom
        let types = security.recordTypes.map { type -> [String: Any] in
            let name = type.name
            var granted: [String: Set<String>] = [:]
            for grant in type.grants { granted[grant.role, default: []].formUnion(grant.permissions) }
            return [
                "name": name,
                "cells": roles.map { role -> [String: Any] in
                    [
                        "role": role,
                        "permissions": Permission.allCases.map { permission -> [String: Any] in
                            [
                                "permission": permission.rawValue, "short": String(permission.rawValue.prefix(1)),
                                "field": "g.\(role).\(permission.rawValue)",
                                "checked": granted[role]?.contains(permission.rawValue) == true,
                                "id": "g-\(RecordForm.identifier(name))-\(RecordForm.identifier(role))-\(permission.rawValue)",
                            ]
                        },
                    ]
                },
            ]
        }
        let holders = security.holders.map { holder -> [String: Any] in
            ["name": holder.name ?? holder.userRecordName, "roles": holder.roles.joined(separator: ", ")]
        }
        var context: [String: Any] = [
            "bar": location.bar(.security), "editable": editable, "roles": roles.map { ["name": $0] },
            "customRoles": custom.map {
                ["name": $0, "deleteAction": location.path(.security, "/roles/" + URLEncoding.component($0) + "/delete")]
            },
            "hasCustomRoles": !custom.isEmpty, "types": types, "hasTypes": !types.isEmpty, "holders": holders,
            "hasHolders": !holders.isEmpty,
            "grantsAction": location.path(.security, "/grants"), "rolesAction": location.path(.security, "/roles"),
            "holdersAction": location.path(.security, "/holders"), "simulateAction": location.path(.security),
            "environment": location.environment.rawValue,
        ]
        context["simulator"] = try simulator(request, location, types: types.compactMap { $0["name"] as? String })
        return .page(Page("console.security", context: context))
    }

    /// The simulator's form, and its answer when a question was asked (`subject`, `permission`,
    /// `type`, `record`, `user` in the query, so an answer can be bookmarked).
    private func simulator(_ request: ConsoleRequest, _ location: ConsoleLocation, types: [String]) throws -> [String: Any] {
        let subject = request.query("subject") ?? "world"
        let permission = request.query("permission") ?? "READ"
        let type = request.query("type") ?? types.first ?? ""
        let record = request.query("record") ?? ""
        let user = request.query("user") ?? ""
        var context: [String: Any] = [
            "subjects": [("world", "The world (not signed in)"), ("signedIn", "Any signed-in user"), ("user", "This user:")].map {
                ["value": $0.0, "label": $0.1, "selected": $0.0 == subject]
            },
            "permissions": Permission.allCases.map { ["name": $0.rawValue, "selected": $0.rawValue == permission] },
            "types": types.map { ["name": $0, "selected": $0 == type] }, "record": record, "user": user,
        ]
        guard request.query("permission") != nil else { return context }
        do {
            let who = subject == "user" ? user : subject
            let answer = try actions.simulateAccess(
                subject: who, permission: permission, recordType: type, recordName: record, in: try location.identifier,
                environment: location.environment, as: request.identity)
            context["answer"] = [
                "allowed": answer.allowed, "rule": answer.rule, "hasChecks": !answer.checks.isEmpty,
                "caption": "Every grant and rule weighed, in order",
                "checks": answer.checks.map { ["rule": $0.rule, "gives": $0.gives, "why": $0.why] },
            ]
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            context["error"] = mapped.description
        }
        return context
    }

    private func saveGrants(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let type = request.field("recordType") ?? ""
        // A checked box posts `g.ROLE.PERMISSION`; the store merges them into one grant per role
        // and refuses roles the schema does not declare.
        let grants: [JSONValue] = request.form.fields.compactMap { field in
            let parts = field.name.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts[0] == "g" else { return nil }
            return ["role": .string(String(parts[1])), "permissions": [.string(String(parts[2]))]]
        }
        return try console.attempt(back: location.path(.security)) {
            let parsed = try ManagementActions.grants(from: .array(grants))
            _ = try actions.setGrants(
                parsed, of: type, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Grants of \(type) saved."
        }
    }

    private func createRole(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let name = (request.field("name") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: location.path(.security)) {
            _ = try actions.createRole(name, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Role \(name) created."
        }
    }

    private func deleteRole(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let role = request.path("role")
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Delete role \(role)?",
                    message:
                        "Every grant to \(role) is removed from every record type, and every user who holds it loses it, in \(location.environment.rawValue).",
                    action: request.http.path, button: "Delete role", fields: [], cancelURL: location.path(.security),
                    bar: location.bar(.security)))
        }
        return try console.attempt(back: location.path(.security)) {
            _ = try actions.deleteRole(role, in: try location.identifier, environment: location.environment, as: request.identity)
            return "Role \(role) deleted."
        }
    }

    private func setHolder(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let user = (request.field("user") ?? "").trimmingCharacters(in: .whitespaces)
        let role = request.field("role") ?? ""
        let give = request.field("change") != "take"
        return try console.attempt(back: location.path(.security)) {
            let answer = try actions.changeUserRole(
                role, of: user, give: give, in: try location.identifier, environment: location.environment, as: request.identity)
            return "\(answer.name) now holds " + (answer.roles.isEmpty ? "no custom role." : answer.roles.joined(separator: ", ") + ".")
        }
    }
}
