import HTTPServer

/// One route of the API as data: the methods and path it answers, what the request log calls
/// it, what answers it and its limits. ``WebServices/routeTable`` holds every one; the router
/// is built from that table alone, and the OpenAPI tests walk it.
struct APIRoute: Sendable {
    /// What answers a route, which also decides the middleware around it.
    enum Handler: Sendable {
        /// A CloudKit JSON endpoint: the path decoded into an ``APIScope``, the body read (by
        /// `scan` when given, for bodies of the shape it knows), the caller authenticated and
        /// admitted, then `body`. Browsers reach it under the API token's CORS rules.
        case endpoint(APIEndpoint.Body, scan: BodyScan?)
        /// CloudKit's NOT_FOUND, for paths under the API that name no endpoint; CORS as endpoints.
        case notFound
        /// A URL that is its own credential (the web courier, asset files): reachable from any
        /// origin, never cached. The handler is given the route, for its operation name.
        case ownCredential(@Sendable (WebServices, APIRoute, HTTPRequest) throws -> HTTPResponse)
    }

    /// The largest request body a route accepts.
    enum BodyLimit: Sendable {
        /// ``WebServicesConfiguration/maxRequestBytes``.
        case request
        /// The store's largest asset file.
        case asset
        /// The HTTP server's own limit.
        case server
    }

    /// The methods answered; `GET` also answers `HEAD`.
    let methods: [HTTPMethod]
    /// The path, `:name` segments captured and a last `*name` taking the rest.
    let pattern: String
    /// What the request log calls a call of it (`records/query`); `nil` for routes it does not keep.
    let operation: String?
    let handler: Handler
    let bodyLimit: BodyLimit
    /// The largest body whose handler runs on the event loop; `nil` runs it on a worker. For
    /// endpoints that hand their work on (a write to the writer): see
    /// ``WebServices/writeBodyBytesOnEventLoop``.
    var eventLoopBodyLimit: Int? = nil
    /// Whether `Public/openapi.json` describes it: every route but the API's catch-alls.
    var isDocumented = true

    /// A CloudKit JSON endpoint: `operation` on a path of shape `path`, named `operation` in the log.
    static func endpoint(
        _ path: APIPath, _ operation: String, methods: [HTTPMethod] = [.post], scan: BodyScan? = nil, eventLoopBodyLimit: Int? = nil,
        _ body: APIEndpoint.Body
    ) -> APIRoute {
        APIRoute(
            methods: methods, pattern: path.pattern(operation), operation: operation, handler: .endpoint(body, scan: scan),
            bodyLimit: .request,
            eventLoopBodyLimit: eventLoopBodyLimit)
    }

    /// CloudKit's NOT_FOUND for every path under `prefix` that no other route names.
    static func notFound(under prefix: String) -> APIRoute {
        APIRoute(
            methods: HTTPMethod.apiMethods, pattern: prefix + "*rest", operation: nil, handler: .notFound, bodyLimit: .request,
            isDocumented: false)
    }

    /// The route's options on the router.
    func options(_ configuration: WebServicesConfiguration, maximumAssetBytes: Int) -> RouteOptions {
        let maxBodyBytes: Int? =
            switch bodyLimit {
            case .request: configuration.maxRequestBytes
            case .asset: maximumAssetBytes
            case .server: nil
            }
        return RouteOptions(
            maxBodyBytes: maxBodyBytes, eventLoopBodyLimit: eventLoopBodyLimit,
            operation: operation.map { RouteOperation(api: WebServices.metricsAPI, name: $0) })
    }

    /// `pattern` with its `:name` segments filled from `values`, after `base`: a link to this
    /// route handed to a client.
    func link(base: String, _ values: [String: String]) -> String {
        base
            + pattern.split(separator: "/", omittingEmptySubsequences: false).map { segment in
                segment.hasPrefix(":") ? values[String(segment.dropFirst())] ?? "" : String(segment)
            }.joined(separator: "/")
    }
}

extension HTTPMethod {
    /// Methods the catch-all answers NOT_FOUND for.
    static let apiMethods: [HTTPMethod] = [.get, .post, .put, .patch, .delete]
}
