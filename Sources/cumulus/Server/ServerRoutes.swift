import CloudStore
import Console
import HTTPServer
import WebServices

/// Builds the router `cumulus serve` runs: the place where modules mount their routes.
///
/// - `GET /healthz`: health and version (on the event loop unless configured otherwise: it never blocks).
/// - `GET /static/*path`: the files of the public directory.
/// - CloudKit Web Services under `/database/1/…` and `/device/1/…`, and the web courier (WebServices).
/// - `GET /`, `GET|POST /signin`: the start page and web sign-in (Console).
enum ServerRoutes {
    /// - Throws: ``ConsoleError`` when the page templates cannot be loaded.
    static func makeRouter(settings: ServerSettings, started: ContinuousClock.Instant, store: CloudStore) throws -> Router {
        var router = Router()
        let api = WebServices(store: store, configuration: WebServicesConfiguration(
            publicURL: settings.publicURL,
            signInURL: { base, token, origin in Console.signInURL(base: base, apiToken: token, origin: origin) }))
        api.mount(on: &router)
        let health = HealthCheck(started: started)
        let healthOptions = RouteOptions(runsOnEventLoop: settings.healthzOnEventLoop)
        router.get("/healthz", options: healthOptions) { request in health.respond(to: request) }
        let files = StaticFiles(root: settings.publicDirectory)
        router.get("/static/*path", files.handler)
        try Console.mount(on: &router, store: store, configuration: ConsoleConfiguration(
            templatesDirectory: settings.templatesDirectory, publicURL: settings.publicURL, version: CumulusVersion.current))
        return router
    }
}
