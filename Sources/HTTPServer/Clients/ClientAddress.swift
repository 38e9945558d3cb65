/// Who a request comes from, decided once per request by the server (see ``TrustedProxies``):
/// what every per-client rule counts by (limits, sign-in throttling) and what the request log
/// names.
public struct ClientAddress: Hashable, Sendable {
    /// The client's IP address without a port (`203.0.113.7`, `2001:db8::7`): the peer itself,
    /// or, from a trusted proxy, the address it forwarded for. Empty for a request made in
    /// process.
    public var host: String
    /// Whether the client reached the server over TLS: only a trusted proxy can say so
    /// (`X-Forwarded-Proto: https`), since the server itself speaks plain HTTP.
    public var usedTLS: Bool
    /// The trusted proxy the request came through, as `host:port`; `nil` for a direct request.
    public var proxy: String?

    /// Creates a client address.
    public init(host: String, usedTLS: Bool = false, proxy: String? = nil) {
        self.host = host
        self.usedTLS = usedTLS
        self.proxy = proxy
    }

    /// The client of a direct connection from `peer` (`host:port`, `[v6]:port`, or a bare host).
    public init(peer: String) {
        self.init(host: Self.host(of: peer))
    }

    /// The host of `host:port` or `[v6]:port`: `203.0.113.7` of `203.0.113.7:51234`, `::1` of
    /// `[::1]:51234`.
    static func host(of address: String) -> String {
        if address.hasPrefix("["), let end = address.firstIndex(of: "]") {
            return String(address[address.index(after: address.startIndex)..<end])
        }
        // A bare IPv6 address has several colons and no port.
        guard let colon = address.lastIndex(of: ":"), address.firstIndex(of: ":") == colon else { return address }
        return String(address[..<colon])
    }
}
