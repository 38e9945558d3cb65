import CloudStore
import Foundation
import HTTPServer
import WebServices

/// Builds the router `cumulus serve` runs: the place where modules mount their routes.
///
/// - `GET /healthz`: health and version (on the event loop unless configured otherwise: it never blocks).
/// - `GET /static/*path`: the files of the public directory.
/// - `GET /openapi.json`: the API's OpenAPI document, `openapi.json` of the public directory.
/// - CloudKit Web Services under `/database/1/…` and `/device/1/…`, and the web courier (WebServices).
enum ServerRoutes {
    static func makeRouter(settings: ServerSettings, store: CloudStore, started: ContinuousClock.Instant) -> Router {
        var router = Router()
        let api = WebServices(store: store, configuration: WebServicesConfiguration(
            signInURL: { base, token, origin in
                "\(base)/signin?ckAPIToken=\(queryValue(token))" + (origin.map { "&origin=\(queryValue($0))" } ?? "")
            }))
        api.mount(on: &router)
        let health = HealthCheck(started: started)
        let healthOptions = RouteOptions(runsOnEventLoop: settings.healthzOnEventLoop)
        router.get("/healthz", options: healthOptions) { request in health.respond(to: request) }
        let files = StaticFiles(root: settings.publicDirectory)
        router.get("/static/*path", files.handler)
        // The route has no `*path`, so the request names the public directory itself, whose
        // "index file" is the document: the file server's content type, ETag and gzip apply.
        let document = StaticFiles(root: settings.publicDirectory, indexFile: "openapi.json")
        router.get("/openapi.json", document.handler)
        return router
    }

    /// Characters a query value keeps as they are (RFC 3986's unreserved set).
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `value` percent-encoded for a query string: the Origin header is the client's to choose,
    /// and must not add parameters to the sign-in URL.
    static func queryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
