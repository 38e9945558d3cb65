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
enum ServerRoutes {
    /// - Throws: ``ConsoleError`` when the page templates cannot be loaded.
    static func makeRouter(settings: ServerSettings, started: ContinuousClock.Instant, store: CloudStore) throws -> Router {
        var router = Router()
        var apiConfiguration = WebServicesConfiguration(
            publicURL: settings.publicURL,
            // Console percent-encodes the origin: it is the client's to choose and must not add parameters.
            signInURL: { base, token, origin in Console.signInURL(base: base, apiToken: token, origin: origin) })
        apiConfiguration.maxRequestBytes = settings.maxAPIBodyBytes
        apiConfiguration.allowedHosts = settings.allowedHosts
        let api = WebServices(store: store, configuration: apiConfiguration)
        api.mount(on: &router)
        let health = HealthCheck(started: started)
        let healthOptions = RouteOptions(runsOnEventLoop: settings.healthzOnEventLoop)
        router.get("/healthz", options: healthOptions) { request in health.respond(to: request) }
        router.get("/readyz") { _ in HealthCheck.readiness(of: store) }
        let files = StaticFiles(root: settings.publicDirectory)
        router.get("/static/*path", files.handler)
        // The route has no `*path`, so the request names the public directory itself, whose
        // "index file" is the document: the file server's content type, ETag and gzip apply.
        let document = StaticFiles(root: settings.publicDirectory, indexFile: "openapi.json")
        router.get("/openapi.json", document.handler)
        let managementDocument = StaticFiles(root: settings.publicDirectory, indexFile: "openapi-management.json")
        router.get("/admin/v1/openapi.json", managementDocument.handler)
        var consoleConfiguration = ConsoleConfiguration(
            templatesDirectory: settings.templatesDirectory, publicURL: settings.publicURL, version: CumulusVersion.current)
        consoleConfiguration.allowedHosts = settings.allowedHosts
        consoleConfiguration.apiOperations = WebServices.operations
        try Console.mount(on: &router, store: store, configuration: consoleConfiguration)
        return router
    }
}
