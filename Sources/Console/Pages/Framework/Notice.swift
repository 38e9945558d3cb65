import CloudStore
import HTTPServer

/// A one-line message a page leaves for the next one after a redirect ("Zone Notes created"),
/// carried in a short-lived cookie so the address stays clean and a reload does not repeat it.
struct Notice: Equatable {
    /// Whether the message reports a success or a failure.
    enum Kind: String {
        case success, failure
    }

    /// The kind.
    var kind: Kind
    /// The message shown.
    var text: String

    /// A success message.
    static func success(_ text: String) -> Notice { Notice(kind: .success, text: text) }
    /// A failure message.
    static func failure(_ text: String) -> Notice { Notice(kind: .failure, text: text) }

    /// The cookie holding it (its name without ``CookiePolicy``'s prefix).
    static let cookieName = "cumulus_notice"
    /// Where the cookie is sent over plain http.
    private static let cookiePath = "/console"

    /// The `Set-Cookie` value that leaves this notice for the next page: sealed by the store with
    /// a key of its own, so only this server can leave one (security review N14).
    func cookie(sealedBy store: CloudStore, _ cookies: CookiePolicy) -> String {
        cookies.setCookie(
            Self.cookieName, store.sealConsoleNotice("\(kind.rawValue).\(text.prefix(600))"), path: Self.cookiePath, maxAge: 60)
    }

    /// The `Set-Cookie` value that removes a shown notice.
    static func clearingCookie(_ cookies: CookiePolicy) -> String {
        cookies.setCookie(cookieName, "", path: cookiePath, maxAge: 0)
    }

    /// The notice a request carries, if any: an unsigned, altered or old one is ignored.
    static func existing(in request: HTTPRequest, openedBy store: CloudStore, _ cookies: CookiePolicy) -> Notice? {
        guard let sealed = cookies.value(of: cookieName, in: request), let value = store.openConsoleNotice(sealed),
            let dot = value.firstIndex(of: "."), let kind = Kind(rawValue: String(value[..<dot]))
        else { return nil }
        let text = String(value[value.index(after: dot)...])
        return text.isEmpty ? nil : Notice(kind: kind, text: text)
    }

    /// The template values: `notice` {text, success}.
    var context: [String: Any] { ["text": text, "success": kind == .success] }
}
