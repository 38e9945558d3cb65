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
        // Read in place, on bytes: every request through the proxy asks.
        var found: String?
        var leftmostTrusted: IPAddress?
        var walked = false
        var usedTLS: Bool?
        for field in headers.fields.reversed() {
            if usedTLS == nil, HTTPHeaders.namesEqual(field.name, "X-Forwarded-Proto") {
                // The last field's rightmost element is what the peer itself set.
                usedTLS = Self.endsWithHTTPS(field.value)
            } else if !walked, HTTPHeaders.namesEqual(field.name, "X-Forwarded-For") {
                switch walk(field.value) {
                case .client(let client):
                    found = client
                    walked = true
                case .malformed:
                    leftmostTrusted = nil
                    walked = true
                case .allTrusted(let leftmost):
                    leftmostTrusted = leftmost
                }
            }
            if walked && usedTLS != nil { break }
        }
        let client = found ?? leftmostTrusted?.description ?? peerHost
        return ClientAddress(host: client, usedTLS: usedTLS ?? false, proxy: peer)
    }

    /// What one `X-Forwarded-For` value says, read from its right.
    private enum Walk {
        /// The rightmost address that is not trusted, in its usual text.
        case client(String)
        /// An entry that is not an address came first.
        case malformed
        /// Every entry is a trusted address; the leftmost one.
        case allTrusted(IPAddress)
    }

    private func walk(_ value: String) -> Walk {
        var value = value
        return value.withUTF8 { bytes -> Walk in
            var end = bytes.count
            while true {
                var start = end
                while start > 0, bytes[start - 1] != UInt8(ascii: ",") { start -= 1 }
                guard let entry = Self.forwardedAddress(UnsafeBufferPointer(rebasing: bytes[Self.trimmed(bytes, start, end)]))
                else { return .malformed }
                guard contains(entry.address) else {
                    // An IPv4 address inet_pton took is already in its usual text (it refuses
                    // leading zeros); an IPv6 one is written out again, so one client is one key.
                    return .client(
                        entry.writtenAsIPv6
                            ? entry.address.description : String(decoding: UnsafeBufferPointer(rebasing: entry.text), as: UTF8.self))
                }
                if start == 0 { return .allTrusted(entry.address) }
                end = start - 1
            }
        }
    }

    /// An `X-Forwarded-For` entry's address: `192.0.2.7`, `2001:db8::7`, `192.0.2.7:4711` or
    /// `[2001:db8::7]:4711`; `nil` for anything else.
    static func forwardedAddress(_ entry: UnsafeBufferPointer<UInt8>) -> (
        address: IPAddress, writtenAsIPv6: Bool, text: Slice<UnsafeBufferPointer<UInt8>>
    )? {
        guard let first = entry.first else { return nil }
        var text = entry[...]
        if first == UInt8(ascii: "[") {
            guard let close = entry.firstIndex(of: UInt8(ascii: "]")) else { return nil }
            let rest = entry[(close + 1)...]
            guard rest.isEmpty || rest.first == UInt8(ascii: ":") && isPort(rest.dropFirst()) else { return nil }
            text = entry[1..<close]
            guard text.contains(UInt8(ascii: ":")) else { return nil }
        } else if let colon = entry.firstIndex(of: UInt8(ascii: ":")), entry.lastIndex(of: UInt8(ascii: ":")) == colon {
            guard isPort(entry[(colon + 1)...]) else { return nil }
            text = entry[..<colon]
        }
        guard let parsed = IPAddress.parse(UnsafeBufferPointer(rebasing: text)) else { return nil }
        return (parsed.address, parsed.writtenAsIPv6, text)
    }

    /// Whether the last comma-separated element of `value` is `https`, in any case.
    private static func endsWithHTTPS(_ value: String) -> Bool {
        var value = value
        return value.withUTF8 { bytes in
            var start = bytes.count
            while start > 0, bytes[start - 1] != UInt8(ascii: ",") { start -= 1 }
            let element = bytes[trimmed(bytes, start, bytes.count)]
            return element.count == 5 && zip(element, "https".utf8).allSatisfy { $0 | 0x20 == $1 }
        }
    }

    /// `start..<end` of `bytes` without spaces and tabs at either end.
    private static func trimmed(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Range<Int> {
        var start = start
        var end = end
        while start < end, bytes[start] == UInt8(ascii: " ") || bytes[start] == UInt8(ascii: "\t") { start += 1 }
        while end > start, bytes[end - 1] == UInt8(ascii: " ") || bytes[end - 1] == UInt8(ascii: "\t") { end -= 1 }
        return start..<end
    }

    private static func isPort(_ text: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
        !text.isEmpty && text.count <= 5 && text.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
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
