import CloudStore
import HTTPServer

extension WebServices {
    /// Every route of the API, once: the router mounts these and nothing else, the request log
    /// names calls by their `operation`, and `Public/openapi.json` describes every documented one.
    /// A new endpoint is a row here (see ``APIRoute``).
    static let routeTable: [APIRoute] = [
        // A write waits for its commit holding no worker; a small one is read, checked and
        // handed on by the event loop, which then sends its answer.
        .endpoint(
            .database, "records/modify", scan: .modify, eventLoopBodyLimit: writeBodyBytesOnEventLoop, .later(RecordsEndpoints.modify)),
        .endpoint(.database, "records/query", scan: .query, .now(RecordsEndpoints.query)),
        .endpoint(.database, "records/lookup", scan: .lookup, .now(RecordsEndpoints.lookup)),
        .endpoint(.database, "records/changes", .now(ChangesEndpoints.records)),
        .endpoint(.database, "records/resolve", .now(RecordsEndpoints.resolve)),
        .endpoint(.database, "records/accept", .now(RecordsEndpoints.accept)),
        .endpoint(.database, "changes/zone", .now(ChangesEndpoints.zones)),
        .endpoint(.database, "changes/database", .now(ChangesEndpoints.database)),
        .endpoint(.database, "zones/changes", .now(ChangesEndpoints.zoneLog)),
        .endpoint(.database, "zones/list", methods: [.get, .post], .now(ZonesEndpoints.list)),
        .endpoint(.database, "zones/lookup", .now(ZonesEndpoints.lookup)),
        .endpoint(.database, "zones/modify", .now(ZonesEndpoints.modify)),
        .endpoint(.database, "assets/upload", .now(AssetsEndpoints.upload)),
        .endpoint(.database, "assets/rereference", .now(AssetsEndpoints.rereference)),
        .endpoint(.database, "subscriptions/list", methods: [.get, .post], .now(SubscriptionsEndpoints.list)),
        .endpoint(.database, "subscriptions/lookup", .now(SubscriptionsEndpoints.lookup)),
        .endpoint(.database, "subscriptions/modify", .now(SubscriptionsEndpoints.modify)),
        .endpoint(.database, "users/caller", methods: [.get, .post], .now(UsersEndpoints.caller)),
        .endpoint(.database, "users/current", methods: [.get, .post], .now(UsersEndpoints.current)),
        .endpoint(.database, "users/discover", methods: [.get, .post], .now(UsersEndpoints.discover)),
        .endpoint(.database, "users/lookup/email", .now(UsersEndpoints.lookupEmail)),
        .endpoint(.database, "users/lookup/id", .now(UsersEndpoints.lookupID)),
        .endpoint(.database, "users/lookup/contacts", methods: [.get, .post], .now(UsersEndpoints.lookupContacts)),
        .endpoint(.database, "tokens/create", .now(TokensEndpoints.create)),
        .endpoint(.database, "tokens/register", .now(TokensEndpoints.register)),
        .endpoint(.environment, "tokens/create", .now(TokensEndpoints.create)),
        .endpoint(.environment, "tokens/register", .now(TokensEndpoints.register)),
        .endpoint(.device, "tokens/create", .now(TokensEndpoints.create)),
        .endpoint(.device, "tokens/register", .now(TokensEndpoints.register)),
        courierPollRoute,
        APIRoute(
            methods: [.get], pattern: "/webcourier/1/events", operation: nil,
            handler: .ownCredential { api, _, request in try api.courier.events(request) }, bodyLimit: .server),
        assetUploadRoute,
        // CloudKit JS posts the file from the app's page, cross-origin: the URL is the credential.
        APIRoute(
            methods: [.options], pattern: assetUploadRoute.pattern, operation: nil, handler: .ownCredential { _, _, _ in uploadPreflight },
            bodyLimit: .server),
        APIRoute(
            methods: [.get], pattern: CloudDatabase.assetDownloadPath + ":ticket/:file", operation: "assets/file/download",
            handler: .ownCredential { api, route, request in api.assets.download(request, operation: route.operation) }, bodyLimit: .server),
        .notFound(under: "/database/"),
        .notFound(under: "/device/"),
    ]

    /// The web courier's long poll, whose URL `tokens/create` hands out.
    static let courierPollRoute = APIRoute(
        methods: [.get], pattern: "/webcourier/1/aps", operation: nil,
        handler: .ownCredential { api, _, request in try api.courier.poll(request) }, bodyLimit: .server)

    /// Where a client posts an asset's file, at the URL `assets/upload` hands out.
    static let assetUploadRoute = APIRoute(
        methods: [.post], pattern: "/assets/1/upload/:ticket", operation: "assets/file/upload",
        handler: .ownCredential { api, route, request in api.assets.receive(request, operation: route.operation) }, bodyLimit: .asset)

    /// What the server's metrics call the API, beside each route's operation.
    public static let metricsAPI = "cloudkit"

    /// Every operation the request log names calls by, from ``routeTable``, sorted and each once.
    public static let operations: [String] = Array(Set(routeTable.compactMap(\.operation))).sorted()

    /// The path prefixes whose next segment is a credential (an asset ticket), for the server's
    /// `redactedPathPrefixes`, so that no log holds an upload or download URL that works.
    public static let credentialPathPrefixes: [String] = routeTable.reduce(into: []) { prefixes, route in
        guard let ticket = route.pattern.range(of: ":ticket") else { return }
        let prefix = String(route.pattern[..<ticket.lowerBound])
        if !prefixes.contains(prefix) { prefixes.append(prefix) }
    }

    /// Adds every row of ``routeTable`` to `router`, each wrapped in the middleware its kind of
    /// handler needs.
    func mountRouteTable(on router: inout Router) {
        let endpoint = endpoint
        let cors: [any HTTPMiddleware] = [CORSMiddleware(store: store, ownOrigin: { request in endpoint.baseURL(of: request) })]
        let ownCredential: [any HTTPMiddleware] = [AnyOriginMiddleware(), NoStoreMiddleware()]
        for route in Self.routeTable {
            let options = route.options(configuration, maximumAssetBytes: store.configuration.maximumAssetBytes)
            let (middleware, handler): ([any HTTPMiddleware], HTTPHandler) =
                switch route.handler {
                case .endpoint(let body, let scan): (cors, endpoint.handler(operation: route.operation ?? "", scan: scan, body))
                case .notFound: (cors, endpoint.notFound)
                case .ownCredential(let respond): (ownCredential, { [self] request in try respond(self, route, request) })
                }
            router.group("", middleware: middleware) { group in group.route(route.methods, route.pattern, options: options, handler) }
        }
    }
}
