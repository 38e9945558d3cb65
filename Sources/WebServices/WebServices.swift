import CloudKitWire
import CloudStore
import HTTPServer

/// CloudKit Web Services on a ``Router``: the JSON API under `/database/1/…` and `/device/1/…`
/// and the web courier, wire-compatible with Apple's, over a ``CloudStore``.
///
/// ```swift
/// let api = WebServices(store: store, configuration: WebServicesConfiguration(signInURL: Console.signInURL))
/// api.mount(on: &router)
/// ```
public final class WebServices: Sendable {
    let store: CloudStore
    let configuration: WebServicesConfiguration
    let endpoint: APIEndpoint
    let assets: AssetsEndpoints
    let courier: CourierEndpoint

    /// Creates the API over `store`.
    public init(store: CloudStore, configuration: WebServicesConfiguration) {
        self.store = store
        self.configuration = configuration
        endpoint = APIEndpoint(
            store: store, authenticator: RequestAuthenticator(store: store, clockSkew: configuration.clockSkew),
            configuration: configuration)
        assets = AssetsEndpoints(endpoint: endpoint, store: store)
        courier = CourierEndpoint(store: store, timeout: configuration.courierTimeout)
    }

    /// The largest body of a request that hands its work on (`records/modify`) handled on the
    /// event loop: a few operations, read in tens of microseconds. Its handler blocks only to
    /// open an environment or on a credential cache miss; a larger body goes to a worker, so
    /// that reading it holds up no other connection.
    static let writeBodyBytesOnEventLoop = 8 * 1024

    /// The web courier's waiting polls and streams and the notifications it handed out.
    public var courierMetrics: CourierMetrics { courier.metrics }

    /// Adds the API's routes, those of ``routeTable``, to `router`.
    public func mount(on router: inout Router) {
        mountRouteTable(on: &router)
        // The server's own errors on the API's paths (413, 431, 405, 503…) in CloudKit's error
        // JSON, which CloudKit JS and MistKit read; other paths keep what they had.
        let previous = router.errorResponder
        router.errorResponder = { error in
            guard let path = error.rawPath, Self.isAPIPath(path) else { return previous?(error) }
            let failure = CloudKitError(serverError: error)
            var response = HTTPResponse.json(failure.body(uuid: error.requestID).serialized(), status: error.status)
            response.headers.replaceOrAdd(name: "X-Apple-Request-UUID", value: error.requestID)
            response.headers.replaceOrAdd(name: "Cache-Control", value: Self.noStore)
            return response
        }
    }
}

extension WebServices {
    /// The answer to a browser asking whether it may post a file to an upload URL: yes, from any origin.
    static let uploadPreflight: HTTPResponse = {
        var response = HTTPResponse(status: .noContent, bytes: [])
        response.headers["Access-Control-Allow-Origin"] = "*"
        response.headers["Access-Control-Allow-Methods"] = "POST"
        response.headers["Access-Control-Allow-Headers"] = "Content-Type"
        response.headers["Access-Control-Max-Age"] = "600"
        return response
    }()

    /// What every answer of the API, the web courier and asset uploads and downloads carries as
    /// `Cache-Control`: they hold private records, fresh web auth tokens and content fetched with
    /// a session's URL, which no cache, shared or the browser's, may keep.
    static let noStore = "no-store, private"

    /// Whether a request path belongs to the API: `/database/…`, `/device/…`, the web courier, assets.
    static func isAPIPath(_ path: String) -> Bool {
        path.hasPrefix("/database/") || path.hasPrefix("/device/") || path.hasPrefix("/webcourier/") || path.hasPrefix("/assets/")
    }
}

extension CloudKitError {
    /// CloudKit's error for one the HTTP server made itself, keeping the server's status.
    init(serverError error: ServerError) {
        switch error.status.code {
        case 413: self.init("QUOTA_EXCEEDED", 413, "The request is too large: \(error.message)")
        case 503: self.init("TRY_AGAIN_LATER", 503, "The server is busy; try again", retryAfter: 1)
        default: self.init("BAD_REQUEST", error.status.code, error.message)
        }
    }
}

extension APIEndpoint {
    /// CloudKit's NOT_FOUND for paths under the API that name no endpoint.
    var notFound: HTTPHandler {
        { request in
            let error = CloudKitError(WebServicesError.notFound("No endpoint at \(request.path)"))
            var response = HTTPResponse.json(error.body(uuid: request.requestID).serialized(), status: error.httpStatus)
            response.headers["Cache-Control"] = WebServices.noStore
            return response
        }
    }
}

/// `Access-Control-Allow-Origin: *` for the web courier, whose token in the URL is its only credential.
struct AnyOriginMiddleware: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        var response = try next(request)
        if request.headers["Origin"] != nil { response.headers.replaceOrAdd(name: "Access-Control-Allow-Origin", value: "*") }
        return response
    }
}

/// `Cache-Control: no-store, private` on the web courier's and the asset URLs' answers, whose URL
/// is their only credential: a cache keeping one would hand it on after the session ended.
struct NoStoreMiddleware: HTTPMiddleware {
    func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        var response = try next(request)
        response.headers.replaceOrAdd(name: "Cache-Control", value: WebServices.noStore)
        return response
    }
}
