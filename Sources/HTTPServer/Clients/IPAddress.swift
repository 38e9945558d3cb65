import Glibc

/// An IPv4 or IPv6 address as 128 bits: an IPv4 address is held as its IPv4-mapped IPv6 form
/// (`::ffff:a.b.c.d`), so a peer accepted on an IPv6 socket and the same peer on an IPv4 one are
/// one address.
public struct IPAddress: Hashable, Sendable, CustomStringConvertible {
    /// The high 64 bits, in host order.
    let high: UInt64
    /// The low 64 bits, in host order.
    let low: UInt64

    /// The high 64 bits of every IPv4-mapped address.
    private static let mappedHigh: UInt64 = 0
    /// The bits above the IPv4 address in the low half of an IPv4-mapped address.
    private static let mappedLowPrefix: UInt64 = 0x0000_FFFF_0000_0000

    init(high: UInt64, low: UInt64) {
        self.high = high
        self.low = low
    }

    /// The address of IPv4 `bits` (host order).
    init(ipv4 bits: UInt32) {
        self.init(high: Self.mappedHigh, low: Self.mappedLowPrefix | UInt64(bits))
    }

    /// The address of 16 bytes in network order.
    init(ipv6 bytes: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8)) {
        var high: UInt64 = 0
        var low: UInt64 = 0
        withUnsafeBytes(of: bytes) { raw in
            for index in 0..<8 { high = high << 8 | UInt64(raw[index]) }
            for index in 8..<16 { low = low << 8 | UInt64(raw[index]) }
        }
        self.init(high: high, low: low)
    }

    /// Reads an address as written: `192.0.2.7` or `2001:db8::7` (no brackets, port or zone).
    /// - Returns: `nil` for anything else.
    public init?(_ text: some StringProtocol) {
        var text = String(text)
        guard let parsed = text.withUTF8({ Self.parse($0) }) else { return nil }
        self = parsed.address
    }

    /// Reads an address from its text's bytes, in place.
    /// - Returns: the address, and whether it was written in IPv6 form (with colons); `nil` for
    ///   anything that is not an address.
    static func parse(_ bytes: UnsafeBufferPointer<UInt8>) -> (address: IPAddress, writtenAsIPv6: Bool)? {
        // inet_pton wants a C string; the longest IPv6 text is 45 bytes.
        guard !bytes.isEmpty, bytes.count <= 45 else { return nil }
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { raw -> (IPAddress, Bool)? in
            var isIPv6 = false
            for index in 0..<bytes.count {
                let byte = bytes[index]
                // inet_pton stops at a NUL: one inside the text must not end it early.
                guard byte != 0 else { return nil }
                raw[index] = byte
                if byte == UInt8(ascii: ":") { isIPv6 = true }
            }
            let string = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            if isIPv6 {
                var address = in6_addr()
                guard inet_pton(AF_INET6, string, &address) == 1 else { return nil }
                return (IPAddress(ipv6: address.__in6_u.__u6_addr8), true)
            }
            var address = in_addr()
            guard inet_pton(AF_INET, string, &address) == 1 else { return nil }
            return (IPAddress(ipv4: UInt32(bigEndian: address.s_addr)), false)
        }
    }

    /// The address of a socket's peer, or `nil` for a family other than IPv4 and IPv6.
    init?(_ storage: sockaddr_storage) {
        var storage = storage
        switch Int32(storage.ss_family) {
        case AF_INET:
            let bits = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { UInt32(bigEndian: $0.pointee.sin_addr.s_addr) }
            }
            self.init(ipv4: bits)
        case AF_INET6:
            let bytes = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { $0.pointee.sin6_addr.__in6_u.__u6_addr8 }
            }
            self.init(ipv6: bytes)
        default:
            return nil
        }
    }

    /// Whether this is an IPv4 address (or an IPv4-mapped IPv6 one).
    public var isIPv4: Bool { high == Self.mappedHigh && low & 0xFFFF_FFFF_0000_0000 == Self.mappedLowPrefix }

    /// The address in its usual text: dotted for IPv4 (mapped ones too), RFC 5952 for IPv6.
    public var description: String {
        // INET6_ADDRSTRLEN (46) bytes on the stack.
        var buffer: (UInt64, UInt64, UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &buffer) { raw in
            let text = raw.baseAddress!.assumingMemoryBound(to: CChar.self)
            if isIPv4 {
                var address = in_addr(s_addr: UInt32(truncatingIfNeeded: low).bigEndian)
                inet_ntop(AF_INET, &address, text, socklen_t(raw.count))
            } else {
                var address = in6_addr()
                withUnsafeMutableBytes(of: &address) { bytes in
                    for index in 0..<8 {
                        bytes[index] = UInt8(truncatingIfNeeded: high >> (56 - 8 * index))
                        bytes[8 + index] = UInt8(truncatingIfNeeded: low >> (56 - 8 * index))
                    }
                }
                inet_ntop(AF_INET6, &address, text, socklen_t(raw.count))
            }
            return String(decoding: UnsafeRawBufferPointer(start: raw.baseAddress, count: strlen(text)), as: UTF8.self)
        }
    }
}

/// A block of addresses written as CIDR: `10.0.0.0/8`, `2001:db8::/32`; a bare address is the
/// block of that one address. An IPv4 block is the block of its IPv4-mapped addresses, so it
/// holds the same peers on an IPv6 socket; an IPv6 block is taken over all 128 bits (`::/0`
/// holds every address).
public struct IPNetwork: Hashable, Sendable, CustomStringConvertible {
    /// The first address of the block.
    public let address: IPAddress
    /// How many leading bits of the 128 every address of the block shares with ``address``
    /// (an IPv4 block's prefix plus 96).
    let bits: Int

    /// Why a network's text was refused.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What was wrong, naming the text.
        public let description: String
    }

    /// Reads a network strictly: an address, optionally `/` and a prefix length of decimal digits
    /// (0–32 for IPv4, 0–128 for IPv6) with no bits set in the address past it.
    /// - Throws: ``ParseError`` saying what is wrong with `text`.
    public init(parsing text: some StringProtocol) throws(ParseError) {
        let text = String(text)
        let parts = text.split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
        guard let address = IPAddress(parts[0]) else {
            throw ParseError(description: "'\(text)' is not an IPv4 or IPv6 address or CIDR block (such as 10.0.0.0/8 or fd00::/8)")
        }
        let width = address.isIPv4 && !parts[0].contains(":") ? 32 : 128
        var prefix = width
        if parts.count == 2 {
            let digits = parts[1]
            guard !digits.isEmpty, digits.count <= 3, digits.allSatisfy({ $0.isASCII && $0.isNumber }), let value = Int(digits),
                value <= width
            else {
                let family = width == 32 ? "IPv4" : "IPv6"
                throw ParseError(description: "'\(text)' has a bad prefix length: use /0 to /\(width) for an \(family) block")
            }
            prefix = value
        }
        let bits = prefix + (128 - width)
        let network = IPNetwork(address: address, bits: bits)
        guard network.first == address else {
            throw ParseError(
                description: "'\(text)' has bits set past its /\(prefix) prefix; the block starts at \(network.first)/\(prefix)")
        }
        self = network
    }

    private init(address: IPAddress, bits: Int) {
        self.address = address
        self.bits = bits
    }

    /// The masks of the high and low halves.
    private var masks: (high: UInt64, low: UInt64) {
        let high: UInt64 = bits >= 64 ? .max : bits == 0 ? 0 : ~(UInt64.max >> bits)
        let low: UInt64 = bits <= 64 ? 0 : bits >= 128 ? .max : ~(UInt64.max >> (bits - 64))
        return (high, low)
    }

    /// The block's first address: ``address`` with the bits past the prefix cleared.
    private var first: IPAddress {
        let masks = masks
        return IPAddress(high: address.high & masks.high, low: address.low & masks.low)
    }

    /// Whether `candidate` lies in the block.
    public func contains(_ candidate: IPAddress) -> Bool {
        let masks = masks
        return candidate.high & masks.high == address.high && candidate.low & masks.low == address.low
    }

    /// The block as CIDR: `10.0.0.0/8`, `2001:db8::/32`.
    public var description: String {
        address.isIPv4 && bits >= 96 ? "\(address)/\(bits - 96)" : "\(address)/\(bits)"
    }
}
