import HTTPServer

/// Everything that can go wrong in the console: at start, when templates cannot be loaded, and
/// per request, when the input cannot be served (answered with a readable error page).
public enum ConsoleError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The templates directory does not exist or is not a folder.
    case templatesDirectoryMissing(String)
    /// A template every page needs is not in the templates directory.
    case templateMissing(name: String, directory: String)
    /// A template cannot be read or parsed.
    case templateInvalid(file: String, line: Int, column: Int, reason: String)
    /// The request cannot be served as sent (400): a missing or malformed parameter.
    case badRequest(String)
    /// The request is refused (403): a disallowed origin, a missing or wrong form token.
    case forbidden(String)
    /// Nothing is here (404).
    case notFound(String)
    /// The change conflicts with the current state (409): the thing exists, or changed meanwhile.
    case conflict(String)
    /// The request body is not a form (415).
    case unsupportedMediaType(String)
    /// Too many attempts (429): wait this many seconds.
    case throttled(String, retryAfter: Int)
    /// The server is too busy to do this now (503); the message says so and is shown.
    case unavailable(String)
    /// Something failed on the server's side (500); the message is logged, never shown.
    case internalError(String)

    public var description: String {
        switch self {
        case .templatesDirectoryMissing(let directory):
            "The templates directory '\(directory)' does not exist; "
                + "point --templates-dir or CUMULUS_TEMPLATES_DIR at the Templates folder of Cumulus"
        case .templateMissing(let name, let directory):
            "The template '\(name).mustache' is missing from the templates directory '\(directory)'"
        case .templateInvalid(let file, let line, let column, let reason):
            "The template \(file) cannot be parsed at line \(line), column \(column): \(reason)"
        case .badRequest(let message), .forbidden(let message), .notFound(let message), .conflict(let message),
            .unsupportedMediaType(let message), .internalError(let message), .throttled(let message, _), .unavailable(let message):
            message
        }
    }

    /// The status a page answering this error carries.
    var status: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .forbidden: .forbidden
        case .notFound: .notFound
        case .conflict: .conflict
        case .unsupportedMediaType: .unsupportedMediaType
        case .throttled: .tooManyRequests
        case .unavailable: .serviceUnavailable
        case .templatesDirectoryMissing, .templateMissing, .templateInvalid, .internalError: .internalServerError
        }
    }
}
