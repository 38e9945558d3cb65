import CloudStore
import HTTPServer

/// The web sign-in flow of CloudKit Web Services: the page an app opens (as a popup, or in an
/// embedded browser) when the API answers `AUTHENTICATION_REQUIRED`, and where its users sign in
/// to get a web auth token.
///
/// - `GET /signin?ckAPIToken=…[&origin=…]` shows the form for the API token's container.
/// - `POST /signin` checks the name and password. On success the token goes back to the app by a
///   303 redirect to the API token's Sign In Callback with `?ckWebAuthToken=…`, or, without a
///   callback, by a page whose script posts `{ckWebAuthToken, ckSession}` to `window.opener`
///   (CloudKit's documentation names the first key, CloudKit JS reads the second) and closes.
struct SignInPage: Sendable {
    let store: CloudStore
    let pages: PageRenderer
    let configuration: ConsoleConfiguration

    /// The message for a failed sign-in; the same whichever of name or password was wrong.
    static let failureMessage = "Incorrect name or password"

    /// `GET /signin`: the sign-in form.
    func show(_ request: HTTPRequest) throws -> HTTPResponse {
        let target = try SignInTarget.resolve(
            apiToken: request.queryParameter("ckAPIToken"), origin: request.queryParameter("origin"), store: store)
        let existing = CSRFToken.existing(in: request)
        let csrf = existing ?? CSRFToken.make()
        var page = formPage(target, csrf: csrf, name: "", keepSignedIn: false, failure: nil)
        if existing == nil { page.cookies.append(csrf.cookie(secure: isHTTPS(request))) }
        return try pages.response(page)
    }

    /// `POST /signin`: checks the form and hands the web auth token to the app.
    func submit(_ request: HTTPRequest) throws -> HTTPResponse {
        let form = SignInForm(try FormData(request: request))
        try CSRFToken.verify(request, formValue: form.csrfToken)
        let target = try SignInTarget.resolve(apiToken: form.apiToken, origin: form.origin, store: store)
        let user: AppUser
        let webAuthToken: String
        do {
            (user, webAuthToken) = try store.signIn(
                target.apiToken.container, name: form.name, password: form.password, keepSignedIn: form.keepSignedIn)
        } catch CloudStoreError.authenticationFailed {
            // The form again, with what the user typed except the password.
            let csrf = CSRFToken.existing(in: request) ?? CSRFToken.make()
            let page = formPage(target, csrf: csrf, name: form.name, keepSignedIn: form.keepSignedIn, failure: Self.failureMessage)
            return try pages.response(page)
        } catch {
            throw ConsoleError.internalError("Signing in to \(target.apiToken.container) failed: \(error)")
        }

        switch target.delivery {
        case .callback(let callback):
            let location = CallbackURL.appending(webAuthToken: webAuthToken, to: callback)
            // A callback is stored as a validated URL; this keeps a damaged one out of the header.
            guard !location.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else {
                throw ConsoleError.internalError("The sign-in callback of API token \(target.apiToken.name) is not a usable URL")
            }
            var response = HTTPResponse.redirect(to: location, status: .seeOther)
            PageRenderer.addSecurityHeaders(to: &response, carriesTokens: true)
            return response
        case .postMessage(let targetOrigin):
            var page = Page("signin-complete", context: [
                "container": target.apiToken.container.rawValue,
                "userName": user.name,
                "webAuthToken": webAuthToken,
                "webAuthTokenScript": ScriptLiteral.string(webAuthToken),
                "targetOriginScript": ScriptLiteral.string(targetOrigin),
            ])
            page.hasInlineScript = true
            page.carriesTokens = true
            return try pages.response(page)
        }
    }

    private func formPage(_ target: SignInTarget, csrf: CSRFToken, name: String, keepSignedIn: Bool, failure: String?) -> Page {
        var context: [String: Any] = [
            "container": target.apiToken.container.rawValue,
            "environment": target.apiToken.environment.rawValue,
            "apiToken": target.apiToken.token,
            "csrfFieldName": CSRFToken.fieldName,
            "csrfToken": csrf.value,
            "name": name,
            "keepSignedIn": keepSignedIn,
        ]
        if let origin = target.origin { context["origin"] = origin }
        if let failure { context["failure"] = failure }
        var page = Page("signin", status: failure == nil ? .ok : .unauthorized, context: context)
        page.carriesTokens = true
        if case .callback(let callback) = target.delivery, let source = ContentSecurityPolicy.source(for: callback) {
            page.formActionSources = [source]
        }
        return page
    }

    private func isHTTPS(_ request: HTTPRequest) -> Bool {
        configuration.baseURL(for: request).lowercased().hasPrefix("https://")
    }
}
