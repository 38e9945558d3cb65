import HTTPServer

/// A page to answer with: the template, what it shows, and what its headers must allow.
struct Page {
    /// The template to render.
    var template: String
    /// The status to answer with.
    var status: HTTPStatus = .ok
    /// The values the template shows; the renderer adds `version`, `static` and `scriptNonce`.
    var context: [String: Any] = [:]
    /// Whether the page runs its one inline script (allowed by a fresh CSP nonce).
    var hasInlineScript = false
    /// Whether the page or its address carries a token (API token, web auth token, form token):
    /// then no referrer leaves it and no cache keeps it.
    var carriesTokens = false
    /// Where the page's forms may send the browser besides this server, as CSP sources; a
    /// redirect after a form post counts, so sign-in lists its callback here.
    var formActionSources: [String] = []
    /// `Set-Cookie` values to send.
    var cookies: [String] = []

    /// Creates a page.
    init(_ template: String, status: HTTPStatus = .ok, context: [String: Any] = [:]) {
        self.template = template
        self.status = status
        self.context = context
    }
}
