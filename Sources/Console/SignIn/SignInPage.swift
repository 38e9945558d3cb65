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
            apiToken: request.queryParameter("ckAPIToken"), origin: request.queryParameter("origin"), store: store,
            ownOrigin: configuration.baseURL(for: request))
        let existing = CSRFToken.existing(in: request, cookies: configuration.cookies(for: request))
        let csrf = existing ?? CSRFToken.make()
        var page = formPage(target, csrf: csrf, name: "", keepSignedIn: false, failure: nil)
        if existing == nil { page.cookies.append(csrf.cookie(configuration.cookies(for: request))) }
        return try pages.response(page)
    }

    /// How long a sign-in may wait for a password thread before the page says to try again.
    static let passwordCheckTimeout: Duration = .seconds(20)

    /// `POST /signin`: checks the form and hands the web auth token to the app. The password is
    /// checked on the store's password threads; the request waits without holding a worker.
    func submit(_ request: HTTPRequest) throws -> HTTPResponse {
        let form = SignInForm(try FormData(request: request))
        try CSRFToken.verify(request, formValue: form.csrfToken, cookies: configuration.cookies(for: request))
        let target = try SignInTarget.resolve(
            apiToken: form.apiToken, origin: form.origin, store: store, ownOrigin: configuration.baseURL(for: request))
        let pending = PendingResponse(
            timeout: Self.passwordCheckTimeout,
            timeoutResponse: pages.errorResponse(
                .unavailable("Signing in is taking too long right now. Go back and try again in a moment."),
                requestID: request.requestID, carriesTokens: true))
        let pages = pages
        let page = self
        store.signIn(
            target.apiToken.container, target.apiToken.environment, name: form.name, password: form.password,
            keepSignedIn: form.keepSignedIn,
            clientAddress: request.client.host
        ) { result in
            let response: HTTPResponse
            do {
                response = try page.answer(result, form: form, target: target, request: request)
            } catch let error as ConsoleError {
                response = pages.errorResponse(error, requestID: request.requestID, carriesTokens: true)
            } catch {
                response = pages.errorResponse(.internalError("\(error)"), requestID: request.requestID, carriesTokens: true)
            }
            pending.complete(response)
        }
        return .deferred(pending)
    }

    /// The answer to a sign-in attempt: the form again after a failure, else the token handed
    /// to the app.
    private func answer(
        _ result: Result<(user: AppUser, webAuthToken: String), any Error>, form: SignInForm, target: SignInTarget, request: HTTPRequest
    ) throws -> HTTPResponse {
        let user: AppUser
        let webAuthToken: String
        do {
            (user, webAuthToken) = try result.get()
        } catch CloudStoreError.authenticationFailed {
            // The form again, with what the user typed except the password.
            let csrf = CSRFToken.existing(in: request, cookies: configuration.cookies(for: request)) ?? CSRFToken.make()
            let page = formPage(target, csrf: csrf, name: form.name, keepSignedIn: form.keepSignedIn, failure: Self.failureMessage)
            return try pages.response(page)
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            throw ConsoleError.throttled(reason + ".", retryAfter: retryAfter)
        } catch CloudStoreError.tryAgainLater {
            throw ConsoleError.unavailable("Too many people are signing in right now. Go back and try again in a moment.")
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
            var page = Page(
                "signin-complete",
                context: [
                    "container": target.apiToken.container.rawValue,
                    "userName": user.name,
                    "webAuthToken": webAuthToken,
                    "webAuthTokenScript": ScriptLiteral.string(webAuthToken),
                    "targetOriginScript": ScriptLiteral.string(targetOrigin),
                ])
            if let requester = target.requester { page.context["requester"] = requester }
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
        if let requester = target.requester { context["requester"] = requester }
        if let failure { context["failure"] = failure }
        var page = Page("signin", status: failure == nil ? .ok : .unauthorized, context: context)
        page.carriesTokens = true
        if case .callback(let callback) = target.delivery, let source = ContentSecurityPolicy.source(for: callback) {
            page.formActionSources = [source]
        }
        return page
    }
}
