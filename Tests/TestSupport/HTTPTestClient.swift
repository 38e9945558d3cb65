import Foundation

/// One request per connection (`Connection: close`) to a server on 127.0.0.1, read to its end.
/// Redirects are not followed, so tests see them.
public enum HTTPTestClient {
    /// Sends a request and reads the whole response.
    /// - Parameters:
    ///   - headers: Sent in order; a `Host` is added unless one is given, and `Content-Length`
    ///     whenever there is a body or the method is not GET.
    ///   - timeout: How long a read may wait, in seconds.
    ///   - source: Another loopback address to connect from (see ``RawClient/init(port:timeout:from:)``).
    public static func send(
        port: Int, method: String, target: String, headers: [(String, String)] = [], body: [UInt8] = [], timeout: TimeInterval = 40,
        from source: String? = nil
    ) throws -> TestResponse {
        let client = try RawClient(port: port, timeout: timeout, from: source)
        defer { client.close() }
        var head = "\(method) \(target) HTTP/1.1\r\n"
        if !headers.contains(where: { $0.0.lowercased() == "host" }) { head += "Host: 127.0.0.1:\(port)\r\n" }
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if method != "GET" && method != "HEAD" || !body.isEmpty { head += "Content-Length: \(body.count)\r\n" }
        head += "Connection: close\r\n\r\n"
        try client.send(Array(head.utf8) + body)
        return try client.readResponse(head: method == "HEAD")
    }
}

/// `application/x-www-form-urlencoded` as a browser writes it (spaces as `+`, everything else
/// but `-._*` and ASCII letters and digits escaped), independent of the server's own code.
public enum FormEncoding {
    /// `name=value&…`.
    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { component($0.0) + "=" + component($0.1) }.joined(separator: "&")
    }

    /// One name or value.
    public static func component(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._* ")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!.replacingOccurrences(of: " ", with: "+")
    }
}
