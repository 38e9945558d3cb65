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

    /// The cookie holding it.
    static let cookieName = "cumulus_notice"

    /// The `Set-Cookie` value that leaves this notice for the next page.
    func cookie(secure: Bool) -> String {
        "\(Self.cookieName)=\(kind.rawValue).\(URLEncoding.component(String(text.prefix(600))))"
            + "; Path=/console; Max-Age=60; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The `Set-Cookie` value that removes a shown notice.
    static func clearingCookie(secure: Bool) -> String {
        "\(cookieName)=; Path=/console; Max-Age=0; HttpOnly; SameSite=Strict" + (secure ? "; Secure" : "")
    }

    /// The notice a request carries, if any.
    static func existing(in request: HTTPRequest) -> Notice? {
        guard let value = Cookies.value(named: cookieName, in: request), let dot = value.firstIndex(of: ".") else { return nil }
        guard let kind = Kind(rawValue: String(value[..<dot])),
            let text = PercentDecoding.decode(value[value.index(after: dot)...], plusAsSpace: false, validatingUTF8: true), !text.isEmpty
        else { return nil }
        return Notice(kind: kind, text: text)
    }

    /// The template values: `notice` {text, success}.
    var context: [String: Any] { ["text": text, "success": kind == .success] }
}
