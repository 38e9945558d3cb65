/// Answers requests with a router's routes in the calling thread, without sockets: what the
/// server would answer, for fuzzing and tools. Routes, middleware, 404 and 405 apply as in the
/// server; a handler's error becomes the same 500, and a deferred answer is waited for.
///
/// ```swift
/// let responder = InProcessResponder(router)
/// let response = responder.respond(to: HTTPRequest(method: .post, target: "/api", body: bytes))
/// ```
public struct InProcessResponder: Sendable {
    private let routes: RouteTable
    private let failed: @Sendable (any Error) -> Void

    /// Compiles `router`.
    /// - Parameter failed: told the cause of every 500 a handler's unexpected error becomes.
    public init(_ router: Router, failed: @escaping @Sendable (any Error) -> Void = { _ in }) {
        routes = RouteTable(router)
        self.failed = failed
    }

    /// The response the server would send for `request` (before compression).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        guard let resolution = routes.resolve(method: request.method, rawPath: request.rawPath) else {
            return routes.errorResponse(
                ServerError(
                    status: .badRequest, message: "malformed percent-encoding in path", requestID: request.requestID,
                    rawPath: request.rawPath))
        }
        var routed = request
        routed.pathParameters = resolution.parameters
        let response = invoke(resolution.handler, for: routed, failed: failed)
        if case .pending(let pending) = response.body {
            pending.prepare(PendingResponse.Finishing(headers: response.headers) { _ in })
            return pending.waitForResponse()
        }
        return response
    }
}
