/// The proxies whose word on the client is taken (`--trusted-proxies`), and the one place a
/// request's client is decided from it.
///
/// From a peer outside these blocks, the client is the peer and no header is read, so a forged
/// `X-Forwarded-For` or `X-Forwarded-Proto` gains nothing. From a trusted peer:
/// - the client is the rightmost address of `X-Forwarded-For` (several such headers read as one
///   list, in order) that is not itself trusted; when every address listed is trusted, the
///   leftmost one; without the header, the peer. Addresses may carry a port (`192.0.2.7:4711`,
///   `[2001:db8::7]:4711`), which is dropped.
/// - an entry that is not an address (`unknown`, an obfuscated name, garbage) stops the walk and
///   the peer is the client: what lies left of it cannot be vouched for, and naming the proxy
///   gives a sender of garbage nothing (it shares the proxy's allowance). A proxy that appends
///   the address it saw, as nginx's `$proxy_add_x_forwarded_for` does, always puts a valid
///   entry on the right, so this happens only with a proxy that forwards garbage.
/// - `X-Forwarded-Proto` says whether the client used TLS: the value the peer itself set (the
///   rightmost element of the last such header) is `https`, in any case.
///
/// Connections from a trusted peer are not counted against the per-client connection cap: one
/// proxy carries many clients and their long polls (the global cap still holds).
public struct TrustedProxies: Sendable, Equatable, CustomStringConvertible {
    /// The trusted blocks.
    public let networks: [IPNetwork]

    /// Trusts no one (the default): every client is its peer.
    public init() { networks = [] }

    /// Trusts `networks`.
    public init(_ networks: [IPNetwork]) { self.networks = networks }

    /// Reads `--trusted-proxies`: CIDR blocks (or bare addresses) separated by commas, spaces
    /// around them ignored; an empty text trusts no one.
    /// - Throws: ``IPNetwork/ParseError`` naming the first block that is not one.
    public init(parsing text: String) throws(IPNetwork.ParseError) {
        var networks: [IPNetwork] = []
        let trimmed = text[...].trimmingSpaces
        if !trimmed.isEmpty {
            for part in trimmed.split(separator: ",", omittingEmptySubsequences: false) {
                let entry = part.trimmingSpaces
                guard !entry.isEmpty else {
                    throw IPNetwork.ParseError(description: "'\(text)' has an empty entry: separate CIDR blocks with single commas")
                }
                networks.append(try IPNetwork(parsing: entry))
            }
        }
        self.networks = networks
    }

    /// Whether no proxy is trusted.
    public var isEmpty: Bool { networks.isEmpty }

    /// Whether `address` is in a trusted block.
    public func contains(_ address: IPAddress) -> Bool {
        for network in networks where network.contains(address) { return true }
        return false
    }

    /// The blocks, comma-separated, as `--trusted-proxies` takes them.
    public var description: String { networks.map(\.description).joined(separator: ",") }

    /// The client of a request that came from a trusted peer.
    /// - Parameters:
    ///   - peer: The peer as `host:port`.
    ///   - peerHost: The peer's host (the client when the headers name no other).
    ///   - headers: The request's headers.
    public func client(ofRequestFrom peer: String, peerHost: String, headers: HTTPHeaders) -> ClientAddress {
        var client = peerHost
        var leftmostTrusted: String?
        var usedTLS = false
        var sawProto = false
        walk: for field in headers.fields.reversed() {
            if !sawProto, HTTPHeaders.namesEqual(field.name, "X-Forwarded-Proto") {
                // The last field's rightmost element is what the peer itself set.
                sawProto = true
                usedTLS = field.value.split(separator: ",").last.map { $0.trimmingSpaces.lowercased() == "https" } ?? false
            }
            guard HTTPHeaders.namesEqual(field.name, "X-Forwarded-For") else { continue }
            for entry in field.value.split(separator: ",", omittingEmptySubsequences: false).reversed() {
                guard let address = Self.forwardedAddress(entry.trimmingSpaces) else {
                    leftmostTrusted = nil
                    break walk
                }
                guard contains(address) else {
                    client = address.description
                    leftmostTrusted = nil
                    break walk
                }
                leftmostTrusted = address.description
            }
        }
        if let leftmostTrusted { client = leftmostTrusted }
        if !sawProto {
            // The walk ended before the last X-Forwarded-Proto field (one sent before
            // X-Forwarded-For); it is still the one the peer set.
            for field in headers.fields.reversed() where HTTPHeaders.namesEqual(field.name, "X-Forwarded-Proto") {
                usedTLS = field.value.split(separator: ",").last.map { $0.trimmingSpaces.lowercased() == "https" } ?? false
                break
            }
        }
        return ClientAddress(host: client, usedTLS: usedTLS, proxy: peer)
    }

    /// An `X-Forwarded-For` entry's address: `192.0.2.7`, `2001:db8::7`, `192.0.2.7:4711` or
    /// `[2001:db8::7]:4711`; `nil` for anything else.
    static func forwardedAddress(_ entry: Substring) -> IPAddress? {
        if entry.hasPrefix("[") {
            guard let close = entry.firstIndex(of: "]") else { return nil }
            let rest = entry[entry.index(after: close)...]
            guard rest.isEmpty || Self.isPort(rest.dropFirst()) && rest.first == ":" else { return nil }
            let inside = entry[entry.index(after: entry.startIndex)..<close]
            return inside.contains(":") ? IPAddress(inside) : nil
        }
        if let colon = entry.firstIndex(of: ":"), entry.lastIndex(of: ":") == colon {
            guard Self.isPort(entry[entry.index(after: colon)...]) else { return nil }
            return IPAddress(entry[..<colon])
        }
        return IPAddress(entry)
    }

    private static func isPort(_ text: Substring) -> Bool {
        !text.isEmpty && text.utf8.count <= 5 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}

extension Substring {
    /// The text without spaces and tabs at either end.
    fileprivate var trimmingSpaces: Substring {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        guard let start = firstIndex(where: { !isSpace($0) }), let end = lastIndex(where: { !isSpace($0) }) else {
            return self[endIndex...]
        }
        return self[start...end]
    }
}
