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
        let tokens = (try actions.apiTokens(in: location.container, as: request.identity)["tokens"]?.arrayValue ?? []).map { token in
            let value = token["token"]?.stringValue ?? ""
            let origins = (token["allowedOrigins"]?.arrayValue ?? []).compactMap(\.stringValue)
            return [
                "token": value, "name": token["name"]?.stringValue ?? "", "environment": token["environment"]?.stringValue ?? "",
                "origins": origins.joined(separator: " "),
                "callback": token["signInCallback"]?.stringValue ?? "",
                "created": Formatting.time(token["created"]?.int64Value(acceptingNumericString: false) ?? 0, in: timeZone),
                "revokeAction": location.path(.tokens, "/" + URLEncoding.component(value) + "/revoke"),
            ] as [String: Any]
        }
        return .page(Page("console.tokens", context: [
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
                in: location.container, environment: location.environment.rawValue, name: request.field("name"), allowedOrigins: origins,
                signInCallback: callback.isEmpty ? nil : callback, as: request.identity)
            return "API token created for \(location.environment.rawValue): \(token["token"]?.stringValue ?? "")"
        }
    }

    private func revoke(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let token = request.path("token")
        guard request.isConfirmed else {
            return .page(ConfirmPage.page(
                title: "Revoke this API token?",
                message: "Apps and sites using it are refused from their next request on, and users signed in through it are signed out. "
                    + "It cannot be undone.",
                items: [token], action: request.http.path, button: "Revoke token", fields: [], cancelURL: location.path(.tokens),
                bar: location.bar(.tokens)))
        }
        return try console.attempt(back: location.path(.tokens)) {
            _ = try actions.revokeAPIToken(token, in: location.container, as: request.identity)
            return "API token revoked."
        }
    }
}
