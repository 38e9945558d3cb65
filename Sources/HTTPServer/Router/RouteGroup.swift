/// Routes under a common path prefix, wrapped in common middleware.
///
/// ```swift
/// router.group("/database/1", middleware: [CORSMiddleware()]) { api in
///     api.post("/:container/:environment/:database/records/query") { request in … }
/// }
/// ```
public struct RouteGroup: RouteRegistrar, Sendable {
    /// The prefix put before every pattern of the group.
    public let prefix: String
    let middleware: [any HTTPMiddleware]
    var definitions: [RouteDefinition] = []

    init(prefix: String, middleware: [any HTTPMiddleware]) {
        self.prefix = prefix
        self.middleware = middleware
    }

    public mutating func route(_ methods: [HTTPMethod], _ pattern: String, options: RouteOptions, _ handler: @escaping HTTPHandler) {
        definitions.append(
            RouteDefinition(
                methods: methods, pattern: joinPattern(prefix, pattern), options: options,
                handler: handler, middleware: middleware
            ))
    }

    public mutating func group(_ prefix: String, middleware: [any HTTPMiddleware], _ build: (inout RouteGroup) -> Void) {
        var group = RouteGroup(prefix: joinPattern(self.prefix, prefix), middleware: self.middleware + middleware)
        build(&group)
        definitions += group.definitions
    }
}
