/// The routes of a server: patterns and methods mapped to handlers, with middleware.
///
/// Build it before starting the server; the server compiles it into a lookup tree.
///
/// ```swift
/// var router = Router()
/// router.get("/healthz", options: .onEventLoop) { _ in .json(#"{"status":"ok"}"#) }
/// router.get("/users/:id") { request in .text(request.pathParameters["id"] ?? "") }
/// ```
public struct Router: RouteRegistrar, Sendable {
    var definitions: [RouteDefinition] = []
    var globalMiddleware: [any HTTPMiddleware] = []

    /// Answers requests no route matches; a JSON 404 when `nil`. It runs on the worker pool.
    public var notFoundHandler: HTTPHandler?

    /// Renders the errors the server makes itself (400, 405, 408, 413, 431, 503); the server's
    /// own JSON when `nil` or when it returns `nil`.
    public var errorResponder: ServerErrorResponder?

    /// Where the server counts its requests, by the routes' ``RouteOptions/operation``, and its
    /// connections; nothing is counted when `nil`.
    public var metrics: HTTPMetrics?

    /// Creates an empty router.
    public init() {}

    /// Every route added so far, with its methods and full pattern (`/users/:id`), in the order
    /// added: what an API description or a test of every route walks.
    public var routes: [(methods: [HTTPMethod], pattern: String)] {
        definitions.map { ($0.methods, $0.pattern) }
    }

    /// Adds middleware that wraps every route and the server's 404, 405 and OPTIONS answers,
    /// whenever the routes were registered. The first added runs first.
    public mutating func use(_ middleware: any HTTPMiddleware) {
        globalMiddleware.append(middleware)
    }

    public mutating func route(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions, _ handler: @escaping HTTPHandler) {
        definitions.append(RouteDefinition(methods: methods, pattern: pattern, options: options, handler: handler, middleware: []))
    }

    public mutating func group(_ prefix: String, middleware: [any HTTPMiddleware], _ build: (inout RouteGroup) -> Void) {
        var group = RouteGroup(prefix: prefix, middleware: middleware)
        build(&group)
        definitions += group.definitions
    }
}
