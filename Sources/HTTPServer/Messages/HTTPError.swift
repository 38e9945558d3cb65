/// An error a handler can throw to answer with a chosen response instead of a 500.
public protocol HTTPResponseConvertibleError: Error {
    /// The response to send for this error.
    var httpResponse: HTTPResponse { get }
}

/// A plain error with a status and a message, answered as `{"status":…,"error":"…"}`.
public struct HTTPError: HTTPResponseConvertibleError, CustomStringConvertible, Sendable {
    /// The status to answer with.
    public var status: HTTPStatus
    /// The message put in the body.
    public var message: String

    /// Creates an error.
    public init(_ status: HTTPStatus, message: String? = nil) {
        self.status = status
        self.message = message ?? status.reasonPhrase
    }

    public var httpResponse: HTTPResponse { .error(status, message: message) }

    public var description: String { "HTTP \(status.code): \(message)" }
}
