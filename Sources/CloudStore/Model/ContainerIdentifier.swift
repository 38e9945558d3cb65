import Glibc

/// The identifier of a container, such as `iCloud.com.example.Notes`.
///
/// As in CloudKit, identifiers begin with `iCloud.` and continue with a reverse-DNS name made of
/// letters, digits, `.`, `-` and `_`.
public struct ContainerIdentifier: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The identifier as written, for example `iCloud.com.example.Notes`.
    public let rawValue: String
    /// `rawValue`'s hash, computed once: a request looks its container up in several tables
    /// (open environments, limits, rate buckets), and hashing the text each time cost more than
    /// the lookups themselves.
    private let textHash: Int

    /// Validates and wraps a container identifier.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` when the text is not a valid identifier.
    public init(_ rawValue: String) throws {
        guard Self.isValid(rawValue) else {
            throw CloudStoreError.badRequest(
                "Invalid container identifier '\(rawValue)': it must begin with 'iCloud.' followed by letters, digits, '.', '-' or '_' (at most 255 characters)"
            )
        }
        self.rawValue = rawValue
        textHash = rawValue.hashValue
    }

    /// Identifiers are equal when their text is.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.rawValue == rhs.rawValue }

    /// Feeds the hash of the identifier's text, computed when it was made.
    public func hash(into hasher: inout Hasher) { hasher.combine(textHash) }

    /// Whether `text` is a well-formed container identifier.
    public static func isValid(_ text: String) -> Bool {
        // On the bytes: every API request names its container in its path.
        var text = text
        return text.withUTF8 { bytes in
            let prefix: StaticString = "iCloud."
            let start = prefix.utf8CodeUnitCount
            guard bytes.count > start, bytes.count <= 255, memcmp(bytes.baseAddress!, prefix.utf8Start, start) == 0,
                bytes[start] != UInt8(ascii: "."), bytes[bytes.count - 1] != UInt8(ascii: ".")
            else { return false }
            for byte in bytes[start...] {
                let allowed =
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                    || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                if !allowed { return false }
            }
            return true
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
