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
    let courier: CourierEndpoint

    /// Creates the API over `store`.
    public init(store: CloudStore, configuration: WebServicesConfiguration) {
        self.store = store
        self.configuration = configuration
        endpoint = APIEndpoint(
            store: store, authenticator: RequestAuthenticator(store: store, clockSkew: configuration.clockSkew),
            configuration: configuration)
        courier = CourierEndpoint(store: store, timeout: configuration.courierTimeout)
    }

    /// The largest body of a request that hands its work on (`records/modify`) handled on the
    /// event loop: a few operations, read in tens of microseconds. Its handler blocks only to
    /// open an environment or on a credential cache miss; a larger body goes to a worker, so
    /// that reading it holds up no other connection.
    static let writeBodyBytesOnEventLoop = 8 * 1024

    /// Every API route, as `(methods, pattern)`: what `/openapi.json` must describe.
    public static let routes: [(methods: [HTTPMethod], pattern: String)] = [
        ([.post], "/database/1/:container/:environment/:database/records/modify"),
        ([.post], "/database/1/:container/:environment/:database/records/query"),
        ([.post], "/database/1/:container/:environment/:database/records/lookup"),
        ([.post], "/database/1/:container/:environment/:database/records/changes"),
        ([.post], "/database/1/:container/:environment/:database/records/resolve"),
        ([.post], "/database/1/:container/:environment/:database/records/accept"),
        ([.post], "/database/1/:container/:environment/:database/changes/zone"),
        ([.post], "/database/1/:container/:environment/:database/changes/database"),
        ([.post], "/database/1/:container/:environment/:database/zones/changes"),
        ([.get, .post], "/database/1/:container/:environment/:database/zones/list"),
        ([.post], "/database/1/:container/:environment/:database/zones/lookup"),
        ([.post], "/database/1/:container/:environment/:database/zones/modify"),
        ([.post], "/database/1/:container/:environment/:database/assets/upload"),
        ([.post], "/database/1/:container/:environment/:database/assets/rereference"),
        ([.get, .post], "/database/1/:container/:environment/:database/subscriptions/list"),
        ([.post], "/database/1/:container/:environment/:database/subscriptions/lookup"),
        ([.post], "/database/1/:container/:environment/:database/subscriptions/modify"),
        ([.get, .post], "/database/1/:container/:environment/:database/users/caller"),
        ([.get, .post], "/database/1/:container/:environment/:database/users/current"),
        ([.get, .post], "/database/1/:container/:environment/:database/users/discover"),
        ([.post], "/database/1/:container/:environment/:database/users/lookup/email"),
        ([.post], "/database/1/:container/:environment/:database/users/lookup/id"),
        ([.get, .post], "/database/1/:container/:environment/:database/users/lookup/contacts"),
        ([.post], "/database/1/:container/:environment/:database/tokens/create"),
        ([.post], "/database/1/:container/:environment/:database/tokens/register"),
        ([.post], "/database/1/:container/:environment/tokens/create"),
        ([.post], "/database/1/:container/:environment/tokens/register"),
        ([.post], "/device/1/:container/:environment/tokens/create"),
        ([.post], "/device/1/:container/:environment/tokens/register"),
        ([.get], "/webcourier/1/aps"),
        ([.get], "/webcourier/1/events"),
        ([.post, .options], "/assets/1/upload/:ticket"),
        ([.get], "/assets/1/download/:ticket/:file"),
    ]

    /// Adds the API's routes to `router`.
    public func mount(on router: inout Router) {
        let endpoint = endpoint
        let tokens = TokensEndpoints(endpoint: endpoint)
        let assets = AssetsEndpoints(endpoint: endpoint, store: store)
        let cors: [any HTTPMiddleware] = [CORSMiddleware(store: store, ownOrigin: { request in endpoint.baseURL(of: request) })]
        let bodies: [String: (needsDatabase: Bool, body: APIEndpoint.Body)] = [
            // A write waits for its commit holding no worker.
            "records/modify": (true, .later(RecordsEndpoints.modify)),
            "records/query": (true, .now(RecordsEndpoints.query)),
            "records/lookup": (true, .now(RecordsEndpoints.lookup)),
            "records/changes": (true, .now(ChangesEndpoints.records)),
            "records/resolve": (true, .now(RecordsEndpoints.resolve)),
            "records/accept": (true, .now(RecordsEndpoints.accept)),
            "changes/zone": (true, .now(ChangesEndpoints.zones)),
            "changes/database": (true, .now(ChangesEndpoints.database)),
            "zones/changes": (true, .now(ChangesEndpoints.zoneLog)),
            "zones/list": (true, .now(ZonesEndpoints.list)),
            "zones/lookup": (true, .now(ZonesEndpoints.lookup)),
            "zones/modify": (true, .now(ZonesEndpoints.modify)),
            "assets/upload": (true, .now(assets.upload)),
            "assets/rereference": (true, .now(assets.rereference)),
            "subscriptions/list": (true, .now(SubscriptionsEndpoints.list)),
            "subscriptions/lookup": (true, .now(SubscriptionsEndpoints.lookup)),
            "subscriptions/modify": (true, .now(SubscriptionsEndpoints.modify)),
            "users/caller": (true, .now(UsersEndpoints.caller)),
            "users/current": (true, .now(UsersEndpoints.current)),
            "users/discover": (true, .now(UsersEndpoints.discover)),
            "users/lookup/email": (true, .now(UsersEndpoints.lookupEmail)),
            "users/lookup/id": (true, .now(UsersEndpoints.lookupID)),
            "users/lookup/contacts": (true, .now(UsersEndpoints.lookupContacts)),
            "tokens/create": (false, .now(tokens.create)),
            "tokens/register": (false, .now(tokens.register)),
        ]
        let options = RouteOptions(maxBodyBytes: configuration.maxRequestBytes)
        // A small request whose work is handed on (a write, to the writer) is read, checked and
        // handed on by the event loop, which then sends its answer: no worker between them.
        var handingOnOptions = options
        handingOnOptions.eventLoopBodyLimit = Self.writeBodyBytesOnEventLoop
        router.group("", middleware: cors) { api in
            for (methods, pattern) in Self.routes where pattern.hasPrefix("/database/") || pattern.hasPrefix("/device/") {
                let operation = APIEndpoint.operation(of: pattern)
                let (needsDatabase, body) = bodies[operation]!
                let handler = endpoint.handler(
                    operation: operation, needsDatabase: needsDatabase, scan: BodyScan(operation: operation), body)
                let handsWorkOn = if case .later = body { true } else { false }
                api.route(methods, pattern, options: handsWorkOn ? handingOnOptions : options, handler)
            }
            let notFound = endpoint.notFound
            api.route(HTTPMethod.apiMethods, "/database/*rest", options: options, notFound)
            api.route(HTTPMethod.apiMethods, "/device/*rest", options: options, notFound)
        }
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
        let courier = courier
        router.group("", middleware: [AnyOriginMiddleware(), NoStoreMiddleware()]) { group in
            group.get("/webcourier/1/aps") { request in try courier.poll(request) }
            group.get("/webcourier/1/events") { request in try courier.events(request) }
            // CloudKit JS posts the file from the app's page, cross-origin: the URL is the credential.
            group.route([.post], "/assets/1/upload/:ticket", options: RouteOptions(maxBodyBytes: store.configuration.maximumAssetBytes)) { request in
                assets.receive(request)
            }
            group.route([.options], "/assets/1/upload/:ticket", options: RouteOptions()) { _ in Self.uploadPreflight }
            group.route([.get, .head], "/assets/1/download/:ticket/:file", options: RouteOptions()) { request in assets.download(request) }
        }
    }
}

extension WebServices {
    /// The path prefixes whose next segment is a credential (an asset ticket), for the server's
    /// `redactedPathPrefixes`, so that no log holds an upload or download URL that works.
    public static let credentialPathPrefixes = ["/assets/1/upload/", "/assets/1/download/"]

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

extension HTTPMethod {
    /// Methods the catch-all answers NOT_FOUND for.
    static let apiMethods: [HTTPMethod] = [.get, .post, .put, .patch, .delete]
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
