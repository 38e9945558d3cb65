import CloudStore
import Foundation

/// The `Content-Security-Policy` of console pages: everything from this server only, no plugins,
/// no framing, no `<base>`; scripts only the page's own inline script, by nonce. Scripts from
/// this server are not allowed either: the same origin will serve user-uploaded assets, and
/// none of them must ever run as a script of these pages.
struct ContentSecurityPolicy: Equatable {
    /// The nonce of the page's inline script, if it has one.
    var scriptNonce: String?
    /// Sources forms may submit or be redirected to besides `'self'`.
    var formActionSources: [String] = []

    /// The header value.
    var headerValue: String {
        let scripts = scriptNonce.map { "'nonce-\($0)'" } ?? "'none'"
        let formActions = (["'self'"] + formActionSources).joined(separator: " ")
        return "default-src 'self'; script-src \(scripts); style-src 'self'; img-src 'self'; object-src 'none'; "
            + "base-uri 'none'; form-action \(formActions); frame-ancestors 'none'"
    }

    /// A fresh nonce: 16 random bytes in base64.
    static func makeNonce() -> String {
        Data(SecureToken.randomBytes(16)).base64EncodedString()
    }

    /// The source that lets a form be redirected to `url`: `scheme://host[:port]` for web URLs,
    /// `scheme:` for app schemes such as `cloudkit-icloud.com.example.notes:`; `nil` when the URL
    /// cannot be expressed safely as a source (the header would otherwise be open to injection).
    static func source(for url: String) -> String? {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme.utf8.allSatisfy({ isSchemeByte($0) })
        else { return nil }
        guard scheme == "http" || scheme == "https" else { return scheme + ":" }
        guard let host = components.host, !host.isEmpty, host.utf8.allSatisfy({ isHostByte($0) }) else { return nil }
        return scheme + "://" + host + (components.port.map { ":\($0)" } ?? "")
    }

    private static func isSchemeByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x30 && byte <= 0x39) || byte == UInt8(ascii: "+")
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "[")
            || byte == UInt8(ascii: "]") || byte == UInt8(ascii: ":")
    }
}
