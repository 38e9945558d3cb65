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
            return errorResponse(error, for: request)
        } catch {
            logger.error("\(request.method) \(request.path) [\(request.requestID)]: \(error)")
            return errorResponse(.internalError("\(error)"), for: request)
        }
    }

    private func errorResponse(_ error: ConsoleError, for request: HTTPRequest) -> HTTPResponse {
        var page = ErrorPage.page(for: error, requestID: request.requestID)
        page.carriesTokens = carriesTokens
        do {
            return try pages.response(page)
        } catch {
            // Only if the error template itself fails, which loading at start rules out.
            var response = HTTPResponse.text("\(page.context["statusCode"] ?? "") \(page.context["message"] ?? "")", status: page.status)
            PageRenderer.addSecurityHeaders(to: &response, carriesTokens: carriesTokens)
            return response
        }
    }
}
