import HTTPServer

/// Turns ``Page`` values into HTML responses with the headers every console page carries.
struct PageRenderer: Sendable {
    /// The loaded templates.
    let templates: TemplateRenderer
    /// The console's configuration (version, static path).
    let configuration: ConsoleConfiguration

    /// Renders `page`.
    /// - Throws: ``ConsoleError/internalError(_:)`` when its template is not loaded.
    func response(_ page: Page) throws(ConsoleError) -> HTTPResponse {
        var context = page.context
        context["version"] = configuration.version
        context["static"] = configuration.staticPath
        var policy = ContentSecurityPolicy(formActionSources: page.formActionSources)
        if page.hasInlineScript {
            let nonce = ContentSecurityPolicy.makeNonce()
            policy.scriptNonce = nonce
            context["scriptNonce"] = nonce
        }
        var response = HTTPResponse.html(try templates.render(page.template, context), status: page.status)
        response.headers["Content-Security-Policy"] = policy.headerValue
        Self.addSecurityHeaders(to: &response, carriesTokens: page.carriesTokens)
        for cookie in page.cookies { response.headers.add(name: "Set-Cookie", value: cookie) }
        return response
    }

    /// Headers for every console answer, pages and redirects alike.
    static func addSecurityHeaders(to response: inout HTTPResponse, carriesTokens: Bool) {
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = carriesTokens ? "no-referrer" : "same-origin"
        if carriesTokens { response.headers["Cache-Control"] = "no-store" }
    }
}
