import HTTPServer

/// The answer for paths no route matches: a readable page for browsers, and for everything
/// else (API clients) the server's usual JSON 404, so machines never have to parse HTML.
struct NotFoundPage: Sendable {
    let pages: PageRenderer

    /// Answers `request`.
    func respond(to request: HTTPRequest) -> HTTPResponse {
        guard request.headers.listValues(for: "Accept").contains(where: { $0.lowercased().hasPrefix("text/html") }) else {
            return .error(.notFound)
        }
        var page = ErrorPage.page(for: .notFound("There is no page at \(request.path) on this server."), requestID: request.requestID)
        page.status = .notFound
        return (try? pages.response(page)) ?? .error(.notFound)
    }
}
