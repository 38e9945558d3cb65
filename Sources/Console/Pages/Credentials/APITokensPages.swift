import CloudKitWire
import CloudStore
import HTTPServer

/// The API tokens of a container, with their environment, allowed origins and sign-in
/// callback; create one, revoke one (after a confirmation).
///
/// Under `/console/containers/C/ENV/tokens`: `GET`, `POST` (create), `POST /T/revoke`.
struct APITokensPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.tokens"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/tokens"
        return [
            .get(base) { request in try pages.list(request) },
            .post(base) { request in try pages.create(request) },
            .post(base + "/:token/revoke") { request in try pages.revoke(request) },
        ]
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        let tokens = try actions.apiTokens(in: try location.identifier, as: request.identity).tokens.map { token in
            [
                "token": token.token, "name": token.name, "environment": token.environment.rawValue,
                "origins": token.allowedOrigins.joined(separator: " "),
                "callback": token.signInCallback ?? "",
                "created": Formatting.time(token.created, in: timeZone),
                "revokeAction": location.path(.tokens, "/" + URLEncoding.component(token.token) + "/revoke"),
            ] as [String: Any]
        }
        return .page(
            Page(
                "console.tokens",
                context: [
                    "bar": location.bar(.tokens), "tokens": tokens, "hasTokens": !tokens.isEmpty, "action": location.path(.tokens),
                    "environment": location.environment.rawValue,
                ]))
    }

    private func create(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let origins = (request.field("allowedOrigins") ?? "").split(whereSeparator: { $0 == " " || $0 == "\n" || $0 == "," || $0 == "\r" })
            .map(String.init)
        let callback = (request.field("signInCallback") ?? "").trimmingCharacters(in: .whitespaces)
        return try console.attempt(back: location.path(.tokens)) {
            let token = try actions.createAPIToken(
                in: try location.identifier, environment: location.environment, name: request.field("name"), allowedOrigins: origins,
                signInCallback: callback.isEmpty ? nil : callback, as: request.identity)
            return "API token created for \(location.environment.rawValue): \(token.token)"
        }
    }

    private func revoke(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let token = request.path("token")
        guard request.isConfirmed else {
            let name = try actions.apiTokens(in: try location.identifier, as: request.identity).tokens.first { $0.token == token }?.name
            return .page(
                ConfirmPage.page(
                    title: name.map { "Revoke API token \($0)?" } ?? "Revoke this API token?",
                    message:
                        "Apps and sites using it are refused from their next request on, and users signed in through it are signed out. "
                        + "It cannot be undone.",
                    items: [name.map { "\($0) (\(token.prefix(8))…)" } ?? token], action: request.http.path, button: "Revoke token",
                    fields: [], cancelURL: location.path(.tokens),
                    bar: location.bar(.tokens)))
        }
        return try console.attempt(back: location.path(.tokens)) {
            _ = try actions.revokeAPIToken(token, in: try location.identifier, as: request.identity)
            return "API token revoked."
        }
    }
}
