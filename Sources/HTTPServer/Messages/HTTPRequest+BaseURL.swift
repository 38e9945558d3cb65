extension HTTPRequest {
    /// The URL clients reach this server at, without a trailing slash, for every link handed to
    /// them (sign-in, the web courier, asset URLs, pages): `publicURL` when one is configured;
    /// else `http://` (`https://` when a trusted proxy says the client used TLS: ``ClientAddress/usedTLS``)
    /// and the request's `Host` when it names the address the server listens on
    /// (see ``ListenAddress``) or is one of `allowedHosts`; else the listen address itself. A
    /// `Host` the server was not told to answer to never reaches a link, so a forged one cannot
    /// point links elsewhere.
    /// - Parameters:
    ///   - publicURL: The configured public URL, if any.
    ///   - allowedHosts: Further `Host` values (`cloud.example.com`, `cloud.example.com:8443`),
    ///     in lower case, that may name this server.
    /// - Returns: For example `https://cloud.example.com` or `http://127.0.0.1:8080`; `nil` for a
    ///   request that came through no listening socket (made in process) and names no allowed host.
    public func baseURL(publicURL: String?, allowedHosts: [String] = []) -> String? {
        if let publicURL, !publicURL.isEmpty {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        if let host = headers["Host"], HTTPRequest.isPlainHost(host),
            listenAddress?.hostNames.contains(where: { Self.equalIgnoringCase($0, host) }) == true
                || allowedHosts.contains(where: { Self.equalIgnoringCase($0, host) })
        {
            return (client.usedTLS ? "https://" : "http://") + host
        }
        return listenAddress?.url
    }

    /// Whether `host` is `lowercased` in any case, compared in place (this runs for every records
    /// request, for its assets' download links).
    private static func equalIgnoringCase(_ lowercased: String, _ host: String) -> Bool {
        guard lowercased.utf8.count == host.utf8.count else { return false }
        return zip(lowercased.utf8, host.utf8).allSatisfy { expected, byte in
            expected == (byte >= 0x41 && byte <= 0x5A ? byte | 0x20 : byte)
        }
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

    /// Reads a list of allowed hosts as `--allowed-hosts` takes it: names or `name:port`,
    /// separated by commas or spaces, in lower case; `nil` when one is not a plain host.
    public static func allowedHosts(_ text: String) -> [String]? {
        let hosts = text.split(whereSeparator: { $0 == "," || $0 == " " }).map { $0.lowercased() }
        return hosts.allSatisfy(isPlainHost) ? hosts : nil
    }

    private static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (byte >= 0x30 && byte <= 0x39) || (byte >= 0x61 && byte <= 0x66) || (byte >= 0x41 && byte <= 0x46)
    }
}
