import CloudKitWire
import CloudStore
import HTTPServer

/// The server-to-server keys of a container, with fingerprints; add one from a PEM public key
/// (with the same diagnostics as `cumulus keys add`), revoke one (after a confirmation).
///
/// Under `/console/containers/C/ENV/keys`: `GET`, `POST` (add), `POST /K/revoke`.
struct ServerKeysPages: Sendable {
    let console: ConsolePages
    var actions: ManagementActions { console.actions }

    /// The templates these pages render.
    static let templates = ["console.keys"]

    /// The routes of these pages, under `/console`.
    var routes: [ConsoleRoute] {
        let pages = self
        let base = "/containers/:container/:environment/keys"
        return [
            .get(base) { request in try pages.list(request) },
            .post(base) { request in try pages.add(request) },
            .post(base + "/:key/revoke") { request in try pages.revoke(request) },
        ]
    }

    private func list(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let timeZone = Formatting.timeZone(of: request.http)
        let keys = try actions.serverKeys(in: try location.identifier, as: request.identity).keys.map { key in
            [
                "keyID": key.keyID, "name": key.name, "environment": key.environment.rawValue, "fingerprint": key.fingerprint,
                "created": Formatting.time(key.created, in: timeZone),
                "revokeAction": location.path(.keys, "/" + URLEncoding.component(key.keyID) + "/revoke"),
            ] as [String: Any]
        }
        return .page(
            Page(
                "console.keys",
                context: [
                    "bar": location.bar(.keys), "keys": keys, "hasKeys": !keys.isEmpty, "action": location.path(.keys),
                    "environment": location.environment.rawValue,
                ]))
    }

    private func add(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        return try console.attempt(back: location.path(.keys)) {
            let key = try actions.addServerKey(
                in: try location.identifier, environment: location.environment, publicKeyPEM: request.field("publicKey") ?? "",
                name: request.field("name"), as: request.identity)
            return "Key added. Its key ID, for signing requests: \(key.keyID)"
        }
    }

    private func revoke(_ request: ConsoleRequest) throws -> ConsoleAnswer {
        let location = try ConsoleLocation(request)
        let key = request.path("key")
        guard request.isConfirmed else {
            let name = try actions.serverKeys(in: try location.identifier, as: request.identity).keys.first { $0.keyID == key }?.name
            return .page(
                ConfirmPage.page(
                    title: name.map { "Revoke server-to-server key \($0)?" } ?? "Revoke this server-to-server key?",
                    message: "Requests signed with it are refused from the next one on. It cannot be undone.",
                    items: [name.map { "\($0) (\(key.prefix(8))…)" } ?? key], action: request.http.path, button: "Revoke key", fields: [],
                    cancelURL: location.path(.keys),
                    bar: location.bar(.keys)))
        }
        return try console.attempt(back: location.path(.keys)) {
            _ = try actions.revokeServerKey(key, in: try location.identifier, as: request.identity)
            return "Server-to-server key revoked."
        }
    }
}
