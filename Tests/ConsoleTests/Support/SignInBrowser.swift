import Foundation
import TestSupport

/// What a browser holds after loading the sign-in page: the form-token cookie and the form's
/// hidden fields.
struct OpenedSignIn {
    /// The `Cookie` header value that carries the form token.
    var cookie: String
    /// The hidden fields of the form, as rendered.
    var hiddenFields: [(String, String)]
    /// The page itself.
    var response: TestResponse

    /// The form as a browser would post it with these entries.
    func fields(name: String, password: String, keepSignedIn: Bool = false) -> [(String, String)] {
        hiddenFields + [("name", name), ("password", password)] + (keepSignedIn ? [("keepSignedIn", "yes")] : [])
    }

    /// The headers a same-origin form post carries.
    var postHeaders: [(String, String)] { [("Cookie", cookie), ("Sec-Fetch-Site", "same-origin")] }
}

extension ConsoleTestServer {
    /// Loads `GET /signin` for an API token and reads the cookie and hidden fields from it.
    func openSignIn(apiToken: String, origin: String? = nil) throws -> OpenedSignIn {
        var target = "/signin?ckAPIToken=\(apiToken)"
        if let origin { target += "&origin=" + FormEncoding.component(origin) }
        let response = try get(target)
        guard response.status == 200 else { throw ClientError(description: "GET \(target): \(response.status)") }
        guard let setCookie = response.header("Set-Cookie"), let pair = setCookie.split(separator: ";").first else {
            throw ClientError(description: "no Set-Cookie on the sign-in page")
        }
        return OpenedSignIn(cookie: String(pair), hiddenFields: HTML.hiddenFields(in: response.text), response: response)
    }
}

/// Reading values back out of rendered pages.
enum HTML {
    /// The `name`/`value` pairs of `<input type="hidden">` elements, HTML entities decoded.
    static func hiddenFields(in html: String) -> [(String, String)] {
        html.components(separatedBy: "<input type=\"hidden\" ").dropFirst().compactMap { rest in
            guard let name = attribute("name", in: rest), let value = attribute("value", in: rest) else { return nil }
            return (name, value)
        }
    }

    /// The value of `name="…"` at the start of a tag's text.
    static func attribute(_ name: String, in tag: String) -> String? {
        let tag = tag.prefix { $0 != ">" }
        guard let start = tag.range(of: "\(name)=\"") else { return nil }
        let value = tag[start.upperBound...].prefix { $0 != "\"" }
        return unescape(String(value))
    }

    /// The text between `start` and the next `end`.
    static func text(in html: String, between start: String, and end: String) -> String? {
        guard let open = html.range(of: start) else { return nil }
        guard let close = html[open.upperBound...].range(of: end) else { return nil }
        return String(html[open.upperBound..<close.lowerBound])
    }

    static func unescape(_ text: String) -> String {
        text.replacingOccurrences(of: "&quot;", with: "\"").replacingOccurrences(of: "&#39;", with: "'")
            .replacingOccurrences(of: "&lt;", with: "<").replacingOccurrences(of: "&gt;", with: ">")
            .replacingOccurrences(of: "&amp;", with: "&")
    }
}
