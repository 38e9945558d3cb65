import HTTPServer
import Logging

/// Wraps console handlers so that whatever they throw becomes a readable HTML error page:
/// ``ConsoleError`` values with their own status and message, anything else as a logged 500.
struct PageErrorMiddleware: HTTPMiddleware {
    let pages: PageRenderer
    let logger: Logger
    /// Whether the pages behind this middleware carry tokens (sign-in), so their error pages get
    /// the same referrer and cache rules.
    let carriesTokens: Bool

    func respond(to request: HTTPRequest, next: HTTPHandler) throws -> HTTPResponse {
        do {
            return try next(request)
        } catch let error as ConsoleError {
            if error.status.code >= 500 {
                logger.error("\(request.method) \(request.path) [\(request.requestID)]: \(error)")
            }
            return pages.errorResponse(error, requestID: request.requestID, carriesTokens: carriesTokens)
        } catch {
            logger.error("\(request.method) \(request.path) [\(request.requestID)]: \(error)")
            return pages.errorResponse(.internalError("\(error)"), requestID: request.requestID, carriesTokens: carriesTokens)
        }
    }
}

extension PageRenderer {
    /// The readable error page for `error`, with `Retry-After` when it says when to come back.
    func errorResponse(_ error: ConsoleError, requestID: String, carriesTokens: Bool) -> HTTPResponse {
        var page = ErrorPage.page(for: error, requestID: requestID)
        page.carriesTokens = carriesTokens
        var response: HTTPResponse
        do {
            response = try self.response(page)
        } catch {
            // Only if the error template itself fails, which loading at start rules out.
            response = HTTPResponse.text("\(page.context["statusCode"] ?? "") \(page.context["message"] ?? "")", status: page.status)
            PageRenderer.addSecurityHeaders(to: &response, carriesTokens: carriesTokens)
        }
        if case .throttled(_, let seconds) = error { response.headers.replaceOrAdd(name: "Retry-After", value: String(seconds)) }
        return response
    }
}
