import CloudStore
import Foundation

/// What a sign-in is for, checked before anyone types a password: the app's API token (and so
/// its container), the web page that asked, and how the web auth token gets back to the app.
struct SignInTarget {
    /// How the web auth token reaches the app after a successful sign-in.
    enum Delivery: Equatable {
        /// A redirect to the API token's Sign In Callback with `ckWebAuthToken` in its query.
        case callback(String)
        /// `window.opener.postMessage(…, targetOrigin)` from the page that closes the popup.
        case postMessage(targetOrigin: String)
    }

    /// The app's API token.
    let apiToken: APIToken
    /// The origin of the page that opened sign-in, when the link names it.
    let origin: String?
    /// How the token goes back.
    let delivery: Delivery

    /// The site that asked, as the page names it to the user: the opener's origin, else where
    /// the callback leads; `nil` when the token stays on this server.
    var requester: String? {
        switch delivery {
        case .callback(let callback):
            return URLComponents(string: callback).flatMap { components in
                components.host.map { host in (components.scheme.map { $0 + "://" } ?? "") + host }
            } ?? callback
        case .postMessage(let target):
            return target == "*" ? origin : target
        }
    }

    /// Checks the `ckAPIToken` and `origin` of a sign-in link or form. A web auth token only ever
    /// goes where the operator allowed: the API token's sign-in callback, an origin it lists,
    /// this server's own origin, or — only when the API token allows every origin (`*`) — the
    /// page that opened sign-in, whoever it is.
    /// - Parameter ownOrigin: This server's origin as the browser sees it (`http://host:port`).
    /// - Throws: ``ConsoleError/badRequest(_:)`` for a missing, malformed or unknown API token, a
    ///   malformed origin, or no way to return the token; ``ConsoleError/forbidden(_:)`` for an
    ///   origin the API token does not allow; ``ConsoleError/internalError(_:)`` when the store fails.
    static func resolve(apiToken text: String?, origin rawOrigin: String?, store: CloudStore, ownOrigin: String) throws(ConsoleError)
        -> SignInTarget
    {
        guard let text, !text.isEmpty else {
            throw .badRequest(
                "This sign-in page is opened by apps: its address must carry the app's API token (ckAPIToken).")
        }
        let found: APIToken?
        do {
            found = try store.apiToken(text)
        } catch {
            throw .internalError("Looking up an API token failed: \(error)")
        }
        guard let apiToken = found else {
            throw .badRequest(
                "The API token in this sign-in link is not known to this server. Ask the app's developer for a working link.")
        }
        let origin = rawOrigin.flatMap { $0.isEmpty ? nil : $0 }
        if let origin {
            guard isWebOrigin(origin) else {
                throw .badRequest("The origin '\(origin)' is not a web origin such as https://app.example.com.")
            }
            guard apiToken.allows(origin: origin) || isSameOrigin(origin, ownOrigin) else {
                throw .forbidden("The app's API token does not allow signing in from \(origin).")
            }
        }
        let delivery: Delivery
        if let callback = apiToken.signInCallback {
            delivery = .callback(callback)
        } else if let origin {
            delivery = .postMessage(targetOrigin: origin)
        } else if apiToken.allowedOrigins.contains("*") {
            // The operator chose to let any page receive tokens, so the message may go to
            // whichever page opened the popup.
            delivery = .postMessage(targetOrigin: "*")
        } else if !ownOrigin.isEmpty, apiToken.allowedOrigins.isEmpty {
            // Without allowed origins a token reaches only pages of this server itself.
            delivery = .postMessage(targetOrigin: ownOrigin)
        } else {
            throw .badRequest(
                "This sign-in link does not name the page that opened it (origin), and the app's API token accepts "
                    + "only particular origins, so the sign-in could not be handed back. Open sign-in from the app again.")
        }
        return SignInTarget(apiToken: apiToken, origin: origin, delivery: delivery)
    }

    /// Whether two origins are the same, ignoring case.
    static func isSameOrigin(_ origin: String, _ other: String) -> Bool {
        !other.isEmpty && origin.caseInsensitiveCompare(other) == .orderedSame
    }

    /// `http(s)://host[:port]` with nothing after: the form `postMessage` needs as a target.
    static func isWebOrigin(_ text: String) -> Bool {
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            scheme == "http" || scheme == "https", let host = components.host, !host.isEmpty,
            components.path.isEmpty, components.query == nil, components.fragment == nil, components.user == nil,
            components.password == nil
        else { return false }
        return true
    }
}
