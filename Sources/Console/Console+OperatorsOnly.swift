import CloudKitWire
import CloudStore
import HTTPServer
import Logging

extension Console {
    /// Wraps `handler`, a route of the server's own that only operators may read (the metrics),
    /// so that it answers only a request with a management token (`Authorization: Bearer …`,
    /// as Prometheus sends it) or a console session of an operator whose role allows `needs`
    /// across the whole server: any other gets 401 (no credential) or 403 (a role or container
    /// limit that refuses) with CloudKit's error JSON, as the management API answers it, and
    /// nothing of what `handler` would have said.
    public static func operatorsOnly(
        store: CloudStore, configuration: ConsoleConfiguration, needs permission: OperatorPermission, _ handler: @escaping HTTPHandler
    ) -> HTTPHandler {
        let authenticator = OperatorAuthenticator(store: store, cookies: configuration.cookies)
        let logger = Logger(label: "cumulus.console")
        return { request in
            do {
                try authenticator.authenticate(request).access.check(permission, on: OperatorTarget())
            } catch {
                // Answered as the management API answers a refusal: 401 for a missing or bad
                // credential (with `WWW-Authenticate`), 403 for a role or container limit.
                return ManagementAPI.failure(error, request, logger: logger)
            }
            return try handler(request)
        }
    }
}
