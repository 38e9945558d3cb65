import CloudStore
import HTTPServer

/// One route of the console's pages, as data: its method, its path under `/console`, the
/// largest form it takes, and what answers it. A page type lists its routes
/// (``ConsolePageSet/routes``); ``ConsolePageTable`` mounts them all.
struct ConsoleRoute: Sendable {
    /// What answers a route.
    enum Handler: Sendable {
        /// A page for a signed-in operator, run by ``ConsolePages``: the session and the form
        /// token checked, the page rendered in the console frame.
        case page(ConsolePages.Handler)
        /// A page anyone may reach (the login form), answering on its own.
        case open(HTTPHandler)
    }

    let method: HTTPMethod
    /// The path under `/console`, `:name` segments captured; `""` is `/console` itself.
    let path: String
    /// The largest body accepted; `nil` keeps the server's limit.
    let maxBodyBytes: Int?
    let handler: Handler
    /// What the operator must be allowed to run it, and to post on its page (the page shows no
    /// form the operator may not post): set by ``ConsolePageTable`` from the page type's
    /// ``ConsolePageSet/needs(_:)``. A page route without one is for owners of every container.
    var needs: (route: OperatorPermission, post: OperatorPermission)? = nil

    /// A page answering GET (and HEAD).
    static func get(_ path: String, _ handler: @escaping ConsolePages.Handler) -> ConsoleRoute {
        ConsoleRoute(method: .get, path: path, maxBodyBytes: nil, handler: .page(handler))
    }

    /// A form post.
    static func post(_ path: String, maxBodyBytes: Int = Console.maximumFormBytes, _ handler: @escaping ConsolePages.Handler)
        -> ConsoleRoute
    {
        ConsoleRoute(method: .post, path: path, maxBodyBytes: maxBodyBytes, handler: .page(handler))
    }
}

/// A console page type: the routes of its pages and the templates they render. Each is listed
/// once in ``ConsolePageTable``, which mounts its routes and has its templates checked at start.
protocol ConsolePageSet: Sendable {
    /// The templates its pages render; the console does not start when one is missing.
    static var templates: [String] { get }
    /// Its pages, run by `console`.
    init(console: ConsolePages)
    /// Its routes.
    var routes: [ConsoleRoute] { get }
    /// What its pages concern, as operators' roles tell areas apart.
    static var area: OperatorArea { get }
    /// What a request of `method` to its pages needs: by default reading ``area`` on a GET and
    /// changing it on a post, in the environment of the path.
    static func needs(_ method: HTTPMethod) -> OperatorPermission
}

extension ConsolePageSet {
    /// Reading ``area`` on a GET, changing it otherwise.
    static func needs(_ method: HTTPMethod) -> OperatorPermission {
        OperatorPermission(area: area, changesState: method != .get && method != .head)
    }

    /// Reading ``area`` on a GET; otherwise changing it in production, whichever environment
    /// the path names: for pages whose changes reach production from any page.
    static func changingProduction(_ method: HTTPMethod) -> OperatorPermission {
        method == .get ? .reads(area) : .changes(area, environment: .production)
    }
}
