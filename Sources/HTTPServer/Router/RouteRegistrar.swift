/// A route as registered, before the router compiles it.
struct RouteDefinition: Sendable {
    var methods: [HTTPMethod]
    var pattern: String
    var options: RouteOptions
    var handler: HTTPHandler
    /// Middleware of the enclosing groups, outermost first.
    var middleware: [any HTTPMiddleware]
}

/// Something routes can be registered on: the `Router` itself or a `RouteGroup`.
///
/// Patterns are paths whose segments may be `:name` (one segment, captured) or, last, `*name`
/// (the rest of the path, captured, possibly empty). Literal segments win over `:name`, which
/// wins over `*name`.
public protocol RouteRegistrar {
    /// Registers `handler` for `methods` on `pattern`.
    /// - Parameters:
    ///   - methods: The methods answered; `GET` routes also answer `HEAD`.
    ///   - pattern: For example `/database/1/:container/:environment/records/query` or `/static/*path`.
    ///   - options: Body limit and where the handler runs.
    ///   - handler: The handler.
    mutating func route(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions, _ handler: @escaping HTTPHandler)

    /// Registers the routes `build` adds under `prefix`, wrapped in `middleware` (first runs first).
    mutating func group(_ prefix: String, middleware: [any HTTPMiddleware], _ build: (inout RouteGroup) -> Void)
}

extension RouteRegistrar {
    /// Registers a `GET` (and `HEAD`) route.
    public mutating func get(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.get], pattern, options: options, handler)
    }

    /// Registers a `POST` route.
    public mutating func post(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.post], pattern, options: options, handler)
    }

    /// Registers a `PUT` route.
    public mutating func put(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.put], pattern, options: options, handler)
    }

    /// Registers a `PATCH` route.
    public mutating func patch(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.patch], pattern, options: options, handler)
    }

    /// Registers a `DELETE` route.
    public mutating func delete(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.delete], pattern, options: options, handler)
    }

    /// Registers a `HEAD` route (without one, `HEAD` is answered by the `GET` route).
    public mutating func head(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.head], pattern, options: options, handler)
    }

    /// Registers an `OPTIONS` route (without one, `OPTIONS` is answered with 204 and `Allow`).
    public mutating func options(_ pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler) {
        route([.options], pattern, options: options, handler)
    }

    /// Registers a handler for several methods.
    public mutating func route(
        _ methods: HTTPMethod..., pattern: String, options: RouteOptions = .default, _ handler: @escaping HTTPHandler
    ) {
        route(methods, pattern, options: options, handler)
    }

    /// Registers the routes `build` adds under `prefix`.
    public mutating func group(_ prefix: String, _ build: (inout RouteGroup) -> Void) {
        group(prefix, middleware: [], build)
    }
}

/// Joins a prefix and a pattern with exactly one slash between them.
func joinPattern(_ prefix: String, _ pattern: String) -> String {
    let head = prefix.hasSuffix("/") ? String(prefix.dropLast()) : prefix
    if pattern.isEmpty || pattern == "/" { return head.isEmpty ? "/" : head }
    return head + (pattern.hasPrefix("/") ? pattern : "/" + pattern)
}
