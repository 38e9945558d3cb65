import HTTPServer

/// Builds the router `cumulus serve` runs: the place where modules mount their routes.
///
/// Mounted today:
/// - `GET /healthz`: health and version (on the event loop unless configured otherwise: it never blocks).
/// - `GET /static/*path`: the files of the public directory.
///
/// To come: the CloudKit Web Services API under `/database/1/...` (WebServices) and the console
/// pages under `/` (Console).
enum ServerRoutes {
    static func makeRouter(settings: ServerSettings, started: ContinuousClock.Instant) -> Router {
        var router = Router()
        let health = HealthCheck(started: started)
        let healthOptions = RouteOptions(runsOnEventLoop: settings.healthzOnEventLoop)
        router.get("/healthz", options: healthOptions) { request in health.respond(to: request) }
        let files = StaticFiles(root: settings.publicDirectory)
        router.get("/static/*path", files.handler)
        return router
    }
}
