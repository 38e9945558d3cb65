/// Code that wraps the handlers of a group of routes: it may answer by itself (an OPTIONS
/// preflight), change the request (attach attributes), or change the response (CORS headers).
///
/// Middleware of a group also wraps the server's own 405 and OPTIONS answers for the group's
/// paths, so a CORS middleware sees preflight requests.
public protocol HTTPMiddleware: Sendable {
    /// Answers `request`, calling `next` to continue down the chain.
    /// - Throws: Whatever the handler or the middleware throws; the server turns it into a response.
    func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse
}

/// Middleware given as a closure.
///
/// ```swift
/// router.use(MiddlewareFunction { request, next in
///     var response = try next(request)
///     response.headers["Access-Control-Allow-Origin"] = "*"
///     return response
/// })
/// ```
public struct MiddlewareFunction: HTTPMiddleware {
    private let body: @Sendable (HTTPRequest, HTTPHandler) throws -> HTTPResponse

    /// Creates middleware from a closure.
    public init(_ body: @escaping @Sendable (HTTPRequest, HTTPHandler) throws -> HTTPResponse) {
        self.body = body
    }

    public func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        try body(request, next)
    }
}

extension Array where Element == any HTTPMiddleware {
    /// `handler` wrapped so that the first element runs first.
    func wrapping(_ handler: @escaping HTTPHandler) -> HTTPHandler {
        var wrapped = handler
        for middleware in reversed() {
            let next = wrapped
            wrapped = { request in try middleware.respond(to: request, next: next) }
        }
        return wrapped
    }
}
