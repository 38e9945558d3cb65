import HTTPServer

extension ConsoleConfiguration {
    /// The URL clients reach this server at, without a trailing slash: ``publicURL`` when set,
    /// else `http://` and the request's `Host` header. Links built on it (sign-in, the API base)
    /// stay on the host the client used.
    ///
    /// A `Host` that is not a plain host name or address, with an optional port, is not trusted
    /// into links: the result is then empty, which leaves links relative to the current page.
    /// - Parameter request: The request being answered.
    /// - Returns: For example `https://cloud.example.com` or `http://127.0.0.1:8080`.
    public func baseURL(for request: HTTPRequest) -> String {
        if let publicURL, !publicURL.isEmpty {
            return publicURL.hasSuffix("/") ? String(publicURL.dropLast()) : publicURL
        }
        guard let host = request.headers["Host"], !host.isEmpty, host.utf8.count <= 255,
            host.utf8.allSatisfy({ byte in
                (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".") || byte == UInt8(ascii: ":")
                    || byte == UInt8(ascii: "[") || byte == UInt8(ascii: "]")
            })
        else { return "" }
        return "http://" + host
    }
}
