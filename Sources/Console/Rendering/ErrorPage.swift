import HTTPServer

/// The readable page answering a request that cannot be served: what went wrong, in words for
/// the person looking at it. Failures on the server's side show only the request id, so the
/// operator can find the logged cause and nothing internal leaks.
enum ErrorPage {
    /// The page for `error`.
    /// - Parameters:
    ///   - error: What went wrong.
    ///   - requestID: The id the access log knows the request by.
    static func page(for error: ConsoleError, requestID: String) -> Page {
        let status = error.status
        let message: String
        if case .unavailable = error {
            message = error.description
        } else if status.code >= 500 {
            message =
                "Something went wrong on the server. The problem has been logged"
                + (requestID.isEmpty ? "." : " with request id \(requestID).")
        } else {
            message = error.description
        }
        return Page(
            "error", status: status,
            context: [
                "statusCode": String(status.code),
                "statusReason": status.reasonPhrase,
                "message": message,
            ])
    }
}
