import CloudStore
import HTTPServer
import Logging

extension Console {
    /// The largest sign-in or console form accepted where a route allows no more: a name, a
    /// password and a few tokens fit many times over.
    static let maximumFormBytes = 64 * 1024

    /// Loads the templates and adds the console's routes to `router`:
    ///
    /// - `GET /`: the start page.
    /// - `GET /signin`, `POST /signin`: the web sign-in flow (see ``signInURL(base:apiToken:origin:)``).
    /// - `/console/…`: the admin console, for signed-in operators (see ``mountPages``).
    /// - `/admin/v1/…`: the management JSON API, for management tokens and console sessions.
    /// - Paths no route matches answer browsers (`Accept: text/html`) with a readable 404 page,
    ///   unless the router already has a not-found handler; other clients keep the JSON 404.
    ///
    /// Pages answer bad input with readable error pages (400, 403, 404) and server failures with
    /// a 500 page that shows only the request id; the cause is logged.
    /// - Parameters:
    ///   - router: The router to add to, before the server starts.
    ///   - store: The store pages read and sign users in with.
    ///   - configuration: Templates directory, public URL and version.
    ///   - logger: Where failures are logged.
    /// - Throws: ``ConsoleError`` naming the templates directory or file when templates cannot be loaded.
    public static func mount(
        on router: inout Router, store: CloudStore, configuration: ConsoleConfiguration,
        logger: Logger = Logger(label: "cumulus.console")
    ) throws(ConsoleError) {
        let pages = PageRenderer(templates: try TemplateRenderer(directory: configuration.templatesDirectory), configuration: configuration)
        let start = StartPage(pages: pages, configuration: configuration)
        let signIn = SignInPage(store: store, pages: pages, configuration: configuration)

        router.group("/", middleware: [PageErrorMiddleware(pages: pages, logger: logger, carriesTokens: false)]) { group in
            group.get("/") { request in try start.show(request) }
        }
        router.group("/signin", middleware: [PageErrorMiddleware(pages: pages, logger: logger, carriesTokens: true)]) { group in
            group.get("/") { request in try signIn.show(request) }
            group.post("/", options: RouteOptions(maxBodyBytes: maximumFormBytes)) { request in try signIn.submit(request) }
        }
        let actions = ManagementActions(store: store)
        let authenticator = OperatorAuthenticator(store: store, cookies: configuration.cookies)
        ManagementAPI(actions: actions, authenticator: authenticator, logger: logger, tailHeartbeat: configuration.tailHeartbeat)
            .mount(on: &router)
        mountPages(
            on: &router, store: store, pages: pages, actions: actions, authenticator: authenticator, configuration: configuration,
            logger: logger)
        if router.notFoundHandler == nil {
            let notFound = NotFoundPage(pages: pages)
            router.notFoundHandler = { request in notFound.respond(to: request) }
        }
    }
}

extension Console {
    /// The console's pages under `/console/`, those of ``ConsolePageTable``: login and logout,
    /// then containers and, inside a container, one page per ``ConsoleSection``. A page but the
    /// login form answers a signed-in operator only.
    static func mountPages(
        on router: inout Router, store: CloudStore, pages: PageRenderer, actions: ManagementActions, authenticator: OperatorAuthenticator,
        configuration: ConsoleConfiguration, logger: Logger
    ) {
        let console = ConsolePages(
            pages: pages, authenticator: authenticator, actions: actions, configuration: configuration, logger: logger)
        router.group("", middleware: [PageErrorMiddleware(pages: pages, logger: logger, carriesTokens: false)]) { group in
            for route in ConsolePageTable.routes(console) { console.mount(route, on: &group) }
        }
    }
}
