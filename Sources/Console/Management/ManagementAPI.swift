import CloudKitWire
import CloudStore
import HTTPServer
import Logging

/// The management JSON API under `/admin/v1/`: every console action for scripts and for
/// `cumulus --server`, authenticated by a management token (`Authorization: Bearer …`) or a
/// console session with its CSRF token. Answers are the actions' JSON; errors are CloudKit's
/// error JSON (`uuid`, `serverErrorCode`, `reason`), as the data API sends them.
struct ManagementAPI: Sendable {
    let actions: ManagementActions
    let authenticator: OperatorAuthenticator
    let logger: Logger
    /// How long a live tail may be quiet before a heartbeat, and how often its credential is
    /// checked again meanwhile.
    var tailHeartbeat: Duration = ConsoleConfiguration.defaultTailHeartbeat

    /// The largest schema a PUT may carry.
    static let maximumSchemaBytes = 4 * 1024 * 1024

    /// Every route, as data, in the order they are mounted.
    static let routes: [ManagementRoute] =
        containerRoutes + operatorRoutes + credentialRoutes + userRoutes + schemaRoutes + zoneRoutes + recordRoutes + managementTokenRoutes
        + lifecycleRoutes + seedRoutes + securityRoutes + requestLogRoutes + limitsRoutes + syncRoutes + notificationRoutes + backupRoutes
        + historyRoutes

    /// What the server's metrics call the management API, beside each route's operation.
    static let metricsAPI = "management"

    /// Adds the routes of ``routes`` under `/admin/v1`.
    func mount(on router: inout Router) {
        let api = self
        router.group("/admin/v1") { group in
            for route in Self.routes {
                var options = route.options
                options.operation = RouteOperation(api: Self.metricsAPI, name: route.operation)
                group.route([route.method], route.pattern, options: options) { request in api.respond(to: request, by: route) }
            }
        }
    }

    // MARK: - Answering

    /// Authenticates `request`, reads its body and runs `route`'s action: its JSON answer, or its
    /// own response, with the API's headers; an error as CloudKit's error JSON.
    private func respond(to request: HTTPRequest, by route: ManagementRoute) -> HTTPResponse {
        do {
            let operatorRequest = try authenticator.authenticate(request)
            try operatorRequest.access.check(route.needs, on: OperatorTarget(request))
            let actor = operatorRequest.identity
            let input = try ManagementInput(request, jsonBody: route.body == .json, actions: actions)
            switch route.handler {
            case .json(let action):
                return Self.secured(.json(try action(actions, input, actor).serialized(), status: route.status))
            case .response(let action):
                return Self.secured(try action(self, input, actor))
            }
        } catch {
            return Self.failure(error, request, logger: logger)
        }
    }

    /// A file's response: its bytes with their content type.
    static func file(_ bytes: [UInt8], contentType: String) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, bytes: bytes)
        response.headers["Content-Type"] = contentType
        return response
    }

    /// The answer to a management request that failed with `error`: CloudKit's error JSON with
    /// its status, an internal cause logged under the request's id and never sent.
    static func failure(_ error: any Error, _ request: HTTPRequest, logger: Logger) -> HTTPResponse {
        var mapped = CloudKitError(known: error) ?? .unexpected
        if mapped.isInternal {
            logger.error("management request failed: \(error)", metadata: ["request-id": .string(request.requestID)])
        }
        // A script without a valid credential is told 401, whatever kind of credential it lacked.
        if mapped.serverErrorCode == "AUTHENTICATION_REQUIRED" { mapped = CloudKitError("AUTHENTICATION_FAILED", 401, mapped.reason) }
        var body = mapped.body(uuid: request.requestID)
        // Scripts and the console can add the index a query needs without parsing the reason.
        if case CloudStoreError.missingIndex(let missing) = error, case .object(var object) = body {
            object["missingIndex"] = [
                "recordType": .string(missing.recordType), "field": .string(missing.field), "index": .string(missing.index.rawValue),
            ]
            body = .object(object)
        }
        var response = HTTPResponse.json(body.serialized(), status: HTTPStatus(code: mapped.status))
        if let retryAfter = mapped.retryAfter { response.headers["Retry-After"] = String(retryAfter) }
        if mapped.status == 401 { response.headers["WWW-Authenticate"] = "Bearer realm=\"cumulus\"" }
        return Self.secured(response)
    }

    /// Management answers hold credentials and private data: no cache keeps them.
    private static func secured(_ response: HTTPResponse) -> HTTPResponse {
        var response = response
        response.headers["Cache-Control"] = "no-store"
        response.headers["X-Content-Type-Options"] = "nosniff"
        return response
    }
}
