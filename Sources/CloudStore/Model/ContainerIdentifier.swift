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
        let prefix = "iCloud."
        guard text.hasPrefix(prefix), text.utf8.count <= 255 else { return false }
        let rest = text.utf8.dropFirst(prefix.utf8.count)
        guard let first = rest.first, first != UInt8(ascii: "."), rest.last != UInt8(ascii: ".") else { return false }
        return rest.allSatisfy { byte in
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
        }
    }

    public var description: String { rawValue }

    public static func < (lhs: Self, rhs: Self) -> Bool { lhs.rawValue < rhs.rawValue }
}
