/// An error the server answers by itself, around the handlers: a malformed request (400), no
/// route for the method (405), a body or head too large (413, 431), a request too slow (408),
/// a server too busy (503).
public struct ServerError: Sendable {
    /// The status the server answers with.
    public var status: HTTPStatus
    /// What went wrong, in words.
    public var message: String
    /// The request's id.
    public var requestID: String
    /// The request's path as sent (percent-encoded, without the query), when it was read.
    public var rawPath: String?

    /// Creates a description.
    public init(status: HTTPStatus, message: String, requestID: String, rawPath: String?) {
        self.status = status
        self.message = message
        self.requestID = requestID
        self.rawPath = rawPath
    }
}

/// Renders the server's own errors the way an application wants them (CloudKit's error JSON on
/// its API's paths, say); `nil` keeps the server's `{"status":…,"error":"…"}`. Headers the
/// server needs (`Allow`, `Retry-After`) are added to whatever it returns.
public typealias ServerErrorResponder = @Sendable (ServerError) -> HTTPResponse?

extension RouteTable {
    /// The response to a server-made error: the application's rendering, or the default.
    func errorResponse(_ error: ServerError) -> HTTPResponse {
        errorResponder?(error) ?? .error(error.status, message: error.message)
    }
}
