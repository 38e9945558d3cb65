/// JSON text this module wrote, kept as its bytes: a page of records is written once, straight
/// into bytes, and copied into the response as it is instead of being built as a tree of
/// values first.
///
/// It is a value like any other: ``JSONValue/serialized(_:)`` reads, compares and hashes as the
/// value the text holds (parsed when asked, which only code off the hot paths does).
public struct JSONText: Sendable {
    /// The UTF-8 text: one complete JSON value.
    public let bytes: [UInt8]

    /// Text the module's writer produced, so well-formed by construction.
    init(writtenBy writer: JSONWriter) {
        bytes = writer.output
    }

    /// The value the text holds, parsed.
    public var value: JSONValue {
        // Never fails on the writer's own output; a value nested past the default depth (which
        // parsed requests cannot hold) is the only way, and reads as null rather than crashing.
        (try? JSONValue.parse(bytes, maximumDepth: Int.max)) ?? .null
    }
}
