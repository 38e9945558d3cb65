/// The address a server listens on, as each request it accepted carries it: the `Host` values
/// that name it, and the URL links fall back to when a request's `Host` is not one of them.
public final class ListenAddress: Sendable {
    /// The URL of this address without a trailing slash, such as `http://127.0.0.1:8080`; a
    /// server on all interfaces (`0.0.0.0`, `::`) gives its loopback address.
    public let url: String
    /// The `Host` values, in lower case, that name this address: `127.0.0.1:8080`, and for a
    /// server on loopback or on all interfaces also `localhost:8080`, `127.0.0.1:8080` and
    /// `[::1]:8080`; on port 80 each also without the port.
    let hostNames: [String]

    /// The address of a server listening on `host` (an IP address or `localhost`) and `port`.
    public init(host: String, port: Int) {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        let isWildcard = bare.isEmpty || bare == "0.0.0.0" || bare == "::"
        let isLoopback = bare.lowercased() == "localhost" || bare.hasPrefix("127.") || bare == "::1"
        func named(_ name: String) -> String { name.contains(":") ? "[\(name)]" : name }
        let own = isWildcard ? (bare == "::" ? "[::1]" : "127.0.0.1") : named(bare)
        url = "http://\(own):\(port)"
        var names = [own.lowercased()]
        if isWildcard || isLoopback { names += ["localhost", "127.0.0.1", "[::1]"] }
        var hostNames: [String] = []
        for name in names where !hostNames.contains("\(name):\(port)") {
            hostNames.append("\(name):\(port)")
            if port == 80 { hostNames.append(name) }
        }
        self.hostNames = hostNames
    }
}
