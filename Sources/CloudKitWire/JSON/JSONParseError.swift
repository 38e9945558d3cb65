/// Why a JSON text was refused, and where.
///
/// `offset` counts bytes from the start of the input (zero-based) and points at the byte where
/// the problem was found, so a client can be told exactly where its request body went wrong.
public struct JSONParseError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The zero-based byte offset at which the problem was found.
    public var offset: Int
    /// What is wrong, in words a client developer can act on.
    public var message: String

    /// Creates an error for the given byte offset.
    /// - Parameters:
    ///   - offset: The zero-based byte offset at which the problem was found.
    ///   - message: What is wrong.
    public init(offset: Int, message: String) {
        self.offset = offset
        self.message = message
    }

    /// `"<message> at byte <offset>"`.
    public var description: String { "\(message) at byte \(offset)" }
}
