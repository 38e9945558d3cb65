import CloudStore
import Console
import HTTPServer
import WebServices

/// Builds the router `cumulus serve` runs: the place where modules mount their routes.
///
/// - `GET /healthz`: health and version (on the event loop unless configured otherwise: it never blocks).
/// - `GET /readyz`: whether the store can serve: its database answers with the expected schema
///   and, on PostgreSQL, this process hears the others (503 with the reason when not).
/// - `GET /static/*path`: the files of the public directory.
/// - `GET /openapi.json`: the API's OpenAPI document, `openapi.json` of the public directory;
///   `GET /admin/v1/openapi.json`: the management API's, `openapi-management.json`.
/// - CloudKit Web Services under `/database/1/…` and `/device/1/…`, and the web courier (WebServices).
/// - `GET /`, `GET|POST /signin`: the start page and web sign-in (Console).
/// - `GET /metrics`: the metrics in Prometheus' text format, for a management token
///   (``MetricsEndpoint``); every request is counted in them by its route's operation.
enum ServerRoutes {
    /// What the server's metrics call its own routes, beside each one's operation.
    static let metricsAPI = "server"

    /// The operation metrics count a server route as.
    private static func counted(_ name: String, _ options: RouteOptions = .default) -> RouteOptions {
        var options = options
        options.operation = RouteOperation(api: metricsAPI, name: name)
        return options
    }

    /// - Throws: ``ConsoleError`` when the page templates cannot be loaded.
    static func makeRouter(settings: ServerSettings, started: ContinuousClock.Instant, store: CloudStore) throws -> Router {
        var router = Router()
        let metrics = HTTPMetrics()
        router.metrics = metrics
        var apiConfiguration = WebServicesConfiguration(
            publicURL: settings.publicURL,
            // Console percent-encodes the origin: it is the client's to choose and must not add parameters.
            signInURL: { base, token, origin in Console.signInURL(base: base, apiToken: token, origin: origin) })
        apiConfiguration.maxRequestBytes = settings.maxAPIBodyBytes
        apiConfiguration.allowedHosts = settings.allowedHosts
        apiConfiguration.traceSampler = RequestTraceSampler(rate: settings.traceSample)
        let api = WebServices(store: store, configuration: apiConfiguration)
        api.mount(on: &router)
        let health = HealthCheck(started: started)
        let healthOptions = counted("healthz", RouteOptions(runsOnEventLoop: settings.healthzOnEventLoop))
        router.get("/healthz", options: healthOptions) { request in health.respond(to: request) }
        router.get("/readyz", options: counted("readyz")) { _ in HealthCheck.readiness(of: store) }
        let files = StaticFiles(root: settings.publicDirectory)
        router.get("/static/*path", options: counted("static"), files.handler)
        // The route has no `*path`, so the request names the public directory itself, whose
        // "index file" is the document: the file server's content type, ETag and gzip apply.
        let document = StaticFiles(root: settings.publicDirectory, indexFile: "openapi.json")
        router.get("/openapi.json", options: counted("openapi"), document.handler)
        let managementDocument = StaticFiles(root: settings.publicDirectory, indexFile: "openapi-management.json")
        router.get("/admin/v1/openapi.json", options: counted("openapi"), managementDocument.handler)
        var consoleConfiguration = ConsoleConfiguration(
            templatesDirectory: settings.templatesDirectory, publicURL: settings.publicURL, version: CumulusVersion.current)
        consoleConfiguration.allowedHosts = settings.allowedHosts
        consoleConfiguration.apiOperations = WebServices.operations
        try Console.mount(on: &router, store: store, configuration: consoleConfiguration)
        let scrape = MetricsEndpoint(http: metrics, store: store, api: api)
        router.get(
            "/metrics", options: RouteOptions(operation: MetricsEndpoint.operation),
            Console.operatorsOnly(store: store, configuration: consoleConfiguration, needs: .reads(.usage)) { request in
                scrape.respond(to: request)
            })
        return router
    }
}
