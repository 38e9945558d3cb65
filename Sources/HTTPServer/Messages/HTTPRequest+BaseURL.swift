extension HTTPRequest {
    /// The URL clients reach this server at, without a trailing slash, for links handed to them
    /// (sign-in, the web courier, pages): `publicURL` when one is configured, else `http://` and
    /// the request's `Host` when it is a plain host name or address with an optional port.
    /// A `Host` carrying anything else (spaces, `@`, `/`, quotes, control characters) is never
    /// trusted into a link: the result is then `nil`.
    /// - Parameter publicURL: The configured public URL, if any.
    /// - Returns: For example `https://cloud.example.com` or `http://127.0.0.1:8080`.
    public func baseURL(publicURL: String?) -> String? {
        if let publicURL, !publicURL.isEmpty {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        guard let host = headers["Host"], HTTPRequest.isPlainHost(host) else { return nil }
        return "http://" + host
    }

    /// `host`, `host:port`, `192.0.2.1:80` or `[2001:db8::1]:8080`: letters, digits, `-`, `.`,
    /// with an optional port, or a bracketed IPv6 literal.
    static func isPlainHost(_ host: String) -> Bool {
        // Read in place: every records request asks (for its assets' download links).
        var host = host
        return host.withUTF8 { bytes in
            guard !bytes.isEmpty, bytes.count <= 255 else { return false }
            var index = 0
            if bytes[0] == UInt8(ascii: "[") {
                guard let close = bytes.firstIndex(of: UInt8(ascii: "]")), close > 1 else { return false }
                let inside = bytes[1..<close]
                guard inside.allSatisfy({ isHexDigit($0) || $0 == UInt8(ascii: ":") || $0 == UInt8(ascii: ".") }) else { return false }
                index = close + 1
            } else {
                while index < bytes.count, bytes[index] != UInt8(ascii: ":") {
                    let byte = bytes[index]
                    guard isLetterOrDigit(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") else { return false }
                    index += 1
                }
                guard index > 0 else { return false }
            }
            guard index < bytes.count else { return true }
            guard bytes[index] == UInt8(ascii: ":") else { return false }
            let port = bytes[(index + 1)...]
            return !port.isEmpty && port.count <= 5 && port.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
        }
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }
}
