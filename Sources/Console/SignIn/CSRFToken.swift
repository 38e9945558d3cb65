import CloudStore
import HTTPServer

/// The token that keeps other sites from posting the sign-in form (login CSRF: signing a victim
/// into an account the attacker controls).
///
/// A double-submit token: 32 random bytes in an `HttpOnly`, `SameSite=Strict` cookie scoped to
/// `/signin` (behind https `Secure`, `__Host-` prefixed and so `Path=/`: ``CookiePolicy``),
/// repeated in a hidden form field. A cross-site page can neither read the cookie nor
/// make the browser send it, so it cannot post a matching pair. Browsers that send fetch
/// metadata are also held to `Sec-Fetch-Site: same-origin`. A browser keeps its token while it
/// is valid, so sign-in forms open in several windows all work.
struct CSRFToken: Equatable {
    /// Which form a token protects: its own cookie, sent only to that form's path.
    struct Scope: Sendable {
        /// The cookie's name.
        let cookieName: String
        /// The path the cookie is sent to over plain http.
        let path: String

        /// The web sign-in form of app users.
        static let signIn = Scope(cookieName: "cumulus_signin_csrf", path: "/signin")
        /// The console's login form.
        static let consoleLogin = Scope(cookieName: "cumulus_login_csrf", path: "/console")
    }
    /// The hidden form field repeating it.
    static let fieldName = "csrfToken"
    /// How long the cookie lives, in seconds: long enough to fill in a form at leisure.
    static let lifetime = 2 * 60 * 60

    /// 64 lowercase hexadecimal characters.
    let value: String

    /// The token the request's cookie carries, if it is well-formed.
    static func existing(in request: HTTPRequest, scope: Scope = .signIn, cookies: CookiePolicy) -> CSRFToken? {
        guard let value = cookies.value(of: scope.cookieName, in: request), isWellFormed(value) else { return nil }
        return CSRFToken(value: value)
    }

    /// A fresh token.
    static func make() -> CSRFToken {
        CSRFToken(value: SecureToken.hex(bytes: 32))
    }

    /// The `Set-Cookie` value that hands the token to the browser.
    func cookie(_ cookies: CookiePolicy, scope: Scope = .signIn) -> String {
        cookies.setCookie(scope.cookieName, value, path: scope.path, maxAge: Self.lifetime)
    }

    /// Checks that a posted form comes from this server's own sign-in page.
    /// - Parameters:
    ///   - request: The post, whose cookie and fetch metadata are read.
    ///   - formValue: The hidden field's value.
    ///   - cookies: How the token's cookie is named.
    /// - Throws: ``ConsoleError/forbidden(_:)`` when the post came from another site or the tokens
    ///   are missing or differ.
    static func verify(_ request: HTTPRequest, formValue: String?, scope: Scope = .signIn, cookies: CookiePolicy) throws(ConsoleError) {
        if let site = request.headers["Sec-Fetch-Site"], site.lowercased() != "same-origin" {
            throw .forbidden("This sign-in form was sent from another site and has been refused.")
        }
        guard let cookie = existing(in: request, scope: scope, cookies: cookies), let formValue,
            SecureToken.constantTimeEquals(cookie.value, formValue)
        else {
            throw .forbidden(
                "The sign-in form has expired or this browser does not keep cookies for it. "
                    + "Go back, reload the sign-in page and try again.")
        }
    }

    private static func isWellFormed(_ value: String) -> Bool {
        value.utf8.count == 64 && value.utf8.allSatisfy { ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x61 && $0 <= 0x66) }
    }
}
