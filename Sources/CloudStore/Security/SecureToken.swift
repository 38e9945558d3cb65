import CLinux
import Foundation

/// Secrets and identifiers made from the system's cryptographically secure random source
/// (`getrandom(2)` on Linux), in the shapes CloudKit clients expect, and a comparison that does
/// not leak where two secrets differ.
public enum SecureToken {
    /// `count` random bytes.
    /// - Parameter count: How many bytes.
    /// - Returns: The bytes.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        // The kernel's bytes, small draws through a per-thread pool (the standard generator makes
        // a system call per eight bytes; a create draws its record name on every request).
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            if count > 0, CLinux_random_bytes(buffer.baseAddress!, count) != 0 {
                // The kernel's generator is always there on the Linux versions Swift runs on;
                // without it no secret can be made, so going on would be worse than stopping.
                fatalError("getrandom failed: errno \(errno)")
            }
            initialized = count
        }
    }

    /// Random bytes written as lowercase hex: with the default 32 bytes, 64 characters, the
    /// shape of CloudKit API tokens and key IDs (MistKit checks `^[a-fA-F0-9]{64}$`).
    /// - Parameter bytes: How many random bytes; the text is twice as long.
    /// - Returns: Lowercase hex.
    public static func hex(bytes: Int = 32) -> String {
        hexString(randomBytes(bytes))
    }

    /// A web auth token: the prefix `158__54__` that real CloudKit tokens carry, then base64 of
    /// 72 random bytes, 105 characters from `[A-Za-z0-9+/=_]` in all. Clients must
    /// percent-encode it in URLs (`+`, `/`), as they do for Apple's tokens.
    public static func webAuthToken() -> String {
        "158__54__" + Data(randomBytes(72)).base64EncodedString()
    }

    /// A user record name: `_` and 32 lowercase hex characters, like
    /// `_9a065b60313a5937e75e03ed8e8f383d`.
    public static func userRecordName() -> String {
        "_" + hex(bytes: 16)
    }

    /// A record name for a record saved without one: a UUID in lowercase, like
    /// `019ab3c4-5e6f-7a8b-9c0d-1e2f3a4b5c6d`, as CloudKit clients make them. It is a version 7
    /// UUID: the time in milliseconds, then 74 random bits.
    /// - Parameter milliseconds: the time to put first, in milliseconds since 1970.
    public static func recordName(at milliseconds: Int64) -> String {
        // Time first, so that names made one after another sort one after another: each new
        // record lands at the end of the name index instead of on a random page of it, which
        // kept batches of new records from slowing down as a zone grew. (And Foundation's
        // UUID() on Linux opens /dev/urandom for every call.)
        var bytes: (UInt64, UInt64) = (0, 0)
        withUnsafeMutableBytes(of: &bytes) { bytes in
            if CLinux_random_bytes(bytes.baseAddress!, 16) != 0 { fatalError("getrandom failed: errno \(errno)") }
            let time = UInt64(max(0, milliseconds)) & 0xFFFF_FFFF_FFFF
            for index in 0..<6 { bytes[index] = UInt8(truncatingIfNeeded: time >> (8 * (5 - index))) }
            bytes[6] = (bytes[6] & 0x0F) | 0x70
            bytes[8] = (bytes[8] & 0x3F) | 0x80
        }
        // Written straight into the string: a create names its record on every request.
        return withUnsafeBytes(of: &bytes) { bytes in
            String(unsafeUninitializedCapacity: 36) { text in
                let digits: StaticString = "0123456789abcdef"
                var position = 0
                for index in 0..<16 {
                    if index == 4 || index == 6 || index == 8 || index == 10 {
                        text[position] = UInt8(ascii: "-")
                        position += 1
                    }
                    text[position] = digits.utf8Start[Int(bytes[index] >> 4)]
                    text[position + 1] = digits.utf8Start[Int(bytes[index] & 0x0F)]
                    position += 2
                }
                return position
            }
        }
    }

    /// Whether two strings have the same UTF-8 bytes, taking time that depends only on their
    /// lengths, never on where they differ. For comparing a presented secret with a stored one.
    /// - Returns: `true` when the strings are byte-for-byte equal.
    public static func constantTimeEquals(_ lhs: String, _ rhs: String) -> Bool {
        constantTimeEquals(Array(lhs.utf8), Array(rhs.utf8))
    }

    /// Whether two byte sequences are equal, in time that depends only on their lengths.
    /// - Returns: `true` when the bytes are equal.
    public static func constantTimeEquals(_ lhs: [UInt8], _ rhs: [UInt8]) -> Bool {
        var difference: UInt8 = lhs.count == rhs.count ? 0 : 1
        // Every position of the longer input is read, so a length mismatch costs the same
        // whether the common prefix is long or short.
        for index in 0..<max(lhs.count, rhs.count) {
            let left = index < lhs.count ? lhs[index] : 0
            let right = index < rhs.count ? rhs[index] : 0
            difference |= left ^ right
        }
        return difference == 0
    }

    static func hexString(_ bytes: [UInt8]) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { text in
            for (index, byte) in bytes.enumerated() {
                text[2 * index] = digits.utf8Start[Int(byte >> 4)]
                text[2 * index + 1] = digits.utf8Start[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }

    /// The bytes that hex text spells, lowercase or uppercase; `nil` for anything else.
    static func bytes(fromHex hex: String) -> [UInt8]? {
        let digits = hex.utf8
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var iterator = digits.makeIterator()
        while let high = iterator.next(), let low = iterator.next() {
            guard let high = hexValue(high), let low = hexValue(low) else { return nil }
            bytes.append(high << 4 | low)
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
