import CloudStore
import HTTPServer

/// The console's front door:
///
/// - `GET /console/`: the containers for a signed-in operator, else the login form.
/// - `GET /console/login`, `POST /console/login`: name and password, throttled like app
///   sign-in; a new session (and a new session id) at every login, its secret in an `HttpOnly`,
///   `SameSite=Strict` cookie, `Secure` and `__Host-` prefixed behind TLS (``CookiePolicy``).
/// - `POST /console/logout`: ends the session (it needs the session's form token).
struct LoginPage: Sendable {
    let store: CloudStore
    let pages: PageRenderer
    let console: ConsolePages

    /// The templates these pages render.
    static let templates = ["console.login"]

    /// The routes of these pages, under `/console`: `/console` and `/console/` both lead home.
    var routes: [ConsoleRoute] {
        let login = self
        return [
            ConsoleRoute(method: .get, path: "", maxBodyBytes: nil, handler: .open { request in login.home(request) }),
            ConsoleRoute(method: .get, path: "/login", maxBodyBytes: nil, handler: .open { request in try login.show(request) }),
            ConsoleRoute(
                method: .post, path: "/login", maxBodyBytes: Console.maximumFormBytes,
                handler: .open { request in try login.submit(request) }),
            ConsoleRoute(
                method: .post, path: "/logout", maxBodyBytes: Console.maximumFormBytes,
                handler: .open { request in try login.logout(request) }),
            // The group's "/" was `/console`; the address people type and the start page links is `/console/`.
            ConsoleRoute(method: .get, path: "/", maxBodyBytes: nil, handler: .open { request in login.home(request) }),
        ]
    }

    /// The message for a failed login; the same whichever of name or password was wrong.
    static let failureMessage = "Incorrect name or password."

    /// `GET /console/login`.
    func show(_ request: HTTPRequest) throws -> HTTPResponse {
        let existing = CSRFToken.existing(in: request, scope: .consoleLogin, cookies: cookies(request))
        let csrf = existing ?? CSRFToken.make()
        var page = formPage(csrf: csrf, name: "", next: Self.safeNext(request.queryParameter("next")), failure: nil)
        if request.queryParameter("signedOut") == "1" { page.context["signedOut"] = true }
        if existing == nil { page.cookies.append(csrf.cookie(cookies(request), scope: .consoleLogin)) }
        return try pages.response(page)
    }

    /// `POST /console/login`.
    func submit(_ request: HTTPRequest) throws -> HTTPResponse {
        let form = try FormData(request: request)
        try CSRFToken.verify(request, formValue: form[CSRFToken.fieldName], scope: .consoleLogin, cookies: cookies(request))
        let name = form["name"] ?? ""
        let next = Self.safeNext(form["next"])
        let signedIn: (session: OperatorSession, secret: String)
        do {
            signedIn = try store.signInOperator(name, password: form["password"] ?? "", clientAddress: request.client.host)
        } catch CloudStoreError.authenticationFailed {
            let csrf = CSRFToken.existing(in: request, scope: .consoleLogin, cookies: cookies(request)) ?? CSRFToken.make()
            return try pages.response(formPage(csrf: csrf, name: name, next: next, failure: Self.failureMessage))
        } catch CloudStoreError.throttled(let reason, let retryAfter) {
            throw ConsoleError.throttled(reason + ".", retryAfter: retryAfter)
        } catch CloudStoreError.tryAgainLater {
            throw ConsoleError.unavailable("Too many logins are being checked right now. Go back and try again in a moment.")
        }
        // A session the browser held before is ended: the new one has a new id (no fixation).
        if let previous = cookies(request).value(of: OperatorAuthenticator.sessionCookie, in: request) {
            try? store.signOutOperator(secret: previous)
        }
        var response = HTTPResponse.redirect(to: next ?? "/console/containers", status: .seeOther)
        response.headers.add(name: "Set-Cookie", value: cookies(request).setCookie(OperatorAuthenticator.sessionCookie, signedIn.secret))
        PageRenderer.addSecurityHeaders(to: &response, carriesTokens: true)
        return response
    }

    /// `POST /console/logout`.
    func logout(_ request: HTTPRequest) throws -> HTTPResponse {
        let form = try FormData(request: request)
        if let secret = cookies(request).value(of: OperatorAuthenticator.sessionCookie, in: request) {
            do {
                // Logging out needs the form token too, so another site cannot end a session.
                _ = try console.authenticator.authenticate(request, formToken: form[ConsolePages.csrfField] ?? "")
                try store.signOutOperator(secret: secret)
            } catch CloudStoreError.accessDenied(let reason) {
                throw ConsoleError.forbidden(reason + ".")
            } catch CloudStoreError.authenticationFailed {
                // The session had already ended.
            }
        }
        var response = HTTPResponse.redirect(to: "/console/login?signedOut=1", status: .seeOther)
        response.headers.add(name: "Set-Cookie", value: cookies(request).setCookie(OperatorAuthenticator.sessionCookie, "", maxAge: 0))
        PageRenderer.addSecurityHeaders(to: &response, carriesTokens: true)
        return response
    }

    /// `GET /console/`: where a signed-in operator starts, else the login form.
    func home(_ request: HTTPRequest) -> HTTPResponse {
        let signedIn = (try? console.authenticator.authenticate(request)) != nil
        var response = HTTPResponse.redirect(to: signedIn ? "/console/containers" : "/console/login", status: .seeOther)
        PageRenderer.addSecurityHeaders(to: &response, carriesTokens: false)
        return response
    }

    /// How cookies are named: the session cookie (`Path=/`) is sent to the console and the
    /// management API, and only by this site's own pages.
    private func cookies(_ request: HTTPRequest) -> CookiePolicy { console.configuration.cookies(for: request) }

    /// A console path to go on to after login: a path of this console only, never another site.
    static func safeNext(_ next: String?) -> String? {
        guard let next, next.hasPrefix("/console/"), !next.hasPrefix("/console/login"), !next.contains("//"), !next.contains("\\"),
            next.utf8.count <= 2048, !next.unicodeScalars.contains(where: { $0.value < 0x21 || $0.value == 0x7F })
        else { return nil }
        return next
    }

    private func formPage(csrf: CSRFToken, name: String, next: String?, failure: String?) -> Page {
        var context: [String: Any] = ["csrfFieldName": CSRFToken.fieldName, "csrfToken": csrf.value, "name": name]
        if let next { context["next"] = next }
        if let failure { context["failure"] = failure }
        var page = Page("console.login", status: failure == nil ? .ok : .unauthorized, context: context)
        page.carriesTokens = true
        return page
    }
}

extension LoginPage {
    /// The login page of `console`'s store and renderer.
    init(console: ConsolePages) {
        self.init(store: console.actions.store, pages: console.pages, console: console)
    }
}
