import HTTPServer

/// Percent-encoding of values placed in URLs the console builds.
enum URLEncoding {
    /// `value` with every byte but the unreserved ones (RFC 3986: letters, digits, `-._~`)
    /// percent-encoded: safe as a path segment and as a query value.
    static func component(_ value: String) -> String {
        PercentEncoding.encodeComponent(value)
    }

    /// A query string from pairs, leaving out empty values: `?a=1&b=x%20y`, or `""`.
    static func query(_ pairs: [(String, String?)]) -> String {
        let parts = pairs.compactMap { name, value -> String? in
            guard let value, !value.isEmpty else { return nil }
            return component(name) + "=" + component(value)
        }
        return parts.isEmpty ? "" : "?" + parts.joined(separator: "&")
    }
}
