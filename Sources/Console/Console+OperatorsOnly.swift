import CloudKitWire
import CloudStore
import HTTPServer

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
        return { request in
            let operatorRequest: OperatorRequest
            do {
                operatorRequest = try authenticator.authenticate(request)
            } catch {
                let reason = CloudKitError(known: error)?.reason ?? "Send a management token as Authorization: Bearer cumulus_mt_…"
                var response = HTTPResponse.json(
                    CloudKitError("AUTHENTICATION_FAILED", 401, reason).body(uuid: request.requestID).serialized(), status: .unauthorized)
                response.headers["WWW-Authenticate"] = "Bearer realm=\"cumulus\""
                response.headers["Cache-Control"] = "no-store"
                return response
            }
            do {
                try operatorRequest.access.check(permission, on: OperatorTarget())
            } catch {
                let reason = CloudKitError(known: error)?.reason ?? "This operator may not read this"
                var response = HTTPResponse.json(
                    CloudKitError("ACCESS_DENIED", 403, reason).body(uuid: request.requestID).serialized(), status: .forbidden)
                response.headers["Cache-Control"] = "no-store"
                return response
            }
            return try handler(request)
        }
    }
}
