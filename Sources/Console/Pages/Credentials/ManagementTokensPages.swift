import CloudKitWire
import CloudStore
import HTTPServer

/// The operator's management tokens, for scripts and `cumulus --server`: list, create (the
/// secret shown once), revoke (after a confirmation).
///
/// `GET /console/management-tokens`, `POST` (create), `POST /console/management-tokens/T/revoke`.
struct ManagementTokensPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.management-tokens"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        return [
            .get("/management-tokens") { request in try pages.list(request, created: nil) },
            .post("/management-tokens") { request in try pages.create(request) },
            .post("/management-tokens/:token/revoke") { request in try pages.revoke(request) },
        ]
    }

    private func list(_ request: ConsoleRequest, created: ManagementTokenView?) throws -> ConsoleAnswer {
        let timeZone = Formatting.timeZone(of: request.http)
        let tokens = try actions.managementTokens(as: request.identity).managementTokens.map { token in
            [
                "id": token.id, "name": token.name, "operator": token.operatorName,
                "created": Formatting.time(token.created, in: timeZone),
                "lastUsed": token.lastUsed.map { Formatting.time($0, in: timeZone) } ?? "never",
                "revokeAction": "/console/management-tokens/" + URLEncoding.component(token.id) + "/revoke",
            ] as [String: Any]
        }
        var context: [String: Any] = ["tokens": tokens, "hasTokens": !tokens.isEmpty]
        if let created {
            context["created"] = ["token": created.secret ?? "", "name": created.name]
        }
        var page = Page("console.management-tokens", status: created == nil ? .ok : .created, context: context)
        page.carriesTokens = created != nil
        return .page(page)
    }

    private func create(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let name = (request.field("name") ?? "").trimmingCharacters(in: .whitespaces)
        do {
            // The secret is shown on this answer and nowhere else: no redirect, no notice cookie.
            let created = try actions.createManagementToken(name: name.isEmpty ? "management token" : name, as: request.identity)
            return try list(request, created: created)
        } catch {
            let mapped = ConsoleError(error)
            guard mapped.isShown else { throw mapped }
            return .redirect("/console/management-tokens", .failure(mapped.description))
        }
    }

    private func revoke(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let id = request.path("token")
        let name = try actions.managementTokens(as: request.identity).managementTokens.first { $0.id == id }?.name
        guard request.isConfirmed else {
            return .page(
                ConfirmPage.page(
                    title: "Revoke management token \(name ?? id)?",
                    message: "Scripts and `cumulus --server` using it are refused from their next request on. It cannot be undone.",
                    action: request.http.path, button: "Revoke token", fields: [], cancelURL: "/console/management-tokens"))
        }
        return try console.attempt(back: "/console/management-tokens") {
            _ = try actions.revokeManagementToken(id, as: request.identity)
            return "Management token \(name ?? id) revoked."
        }
    }
}
