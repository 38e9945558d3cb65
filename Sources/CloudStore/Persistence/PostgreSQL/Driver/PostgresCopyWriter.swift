/// The rows of one `COPY … FROM STDIN`, written in PostgreSQL's text format and sent to the
/// server in chunks as they fill (``PostgresConnection/copyIn(_:_:)`` makes one).
///
/// Each row is its fields in the order of the statement's columns, then ``endRow()``.
final class PostgresCopyWriter {
    private unowned let connection: PostgresConnection
    private var buffer: [UInt8] = []
    private var fieldsInRow = 0
    /// Rows written so far.
    private(set) var rows = 0

    /// How many bytes are gathered before they are sent.
    private static let chunkBytes = 1 << 20

    init(connection: PostgresConnection) {
        self.connection = connection
        buffer.reserveCapacity(Self.chunkBytes + 4096)
    }

    /// A NULL field.
    func null() {
        separate()
        buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "N")])
    }

    /// A text field; backslashes and the format's separators are escaped.
    func text(_ text: String) {
        separate()
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\\"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\")])
            case UInt8(ascii: "\t"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "t")])
            case UInt8(ascii: "\n"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "n")])
            case UInt8(ascii: "\r"): buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "r")])
            default: buffer.append(byte)
            }
        }
    }

    /// An integer field.
    func integer(_ value: Int64) {
        separate()
        buffer.append(contentsOf: String(value).utf8)
    }

    /// A `double precision` field, written so that it reads back bit for bit.
    func double(_ value: Double) {
        separate()
        let text: String
        if value.isNaN {
            text = "NaN"
        } else if value.isInfinite {
            text = value < 0 ? "-Infinity" : "Infinity"
        } else {
            // Swift's description is the shortest text that reads back as the same double.
            text = value.description
        }
        buffer.append(contentsOf: text.utf8)
    }

    /// A boolean field.
    func bool(_ value: Bool) {
        separate()
        buffer.append(value ? UInt8(ascii: "t") : UInt8(ascii: "f"))
    }

    /// A `bytea` field, in the hex format (`\x…`, its backslash escaped).
    func bytes(_ bytes: [UInt8]) {
        separate()
        buffer.append(contentsOf: [UInt8(ascii: "\\"), UInt8(ascii: "\\"), UInt8(ascii: "x")])
        let digits = Array("0123456789abcdef".utf8)
        for byte in bytes {
            buffer.append(digits[Int(byte >> 4)])
            buffer.append(digits[Int(byte & 0x0F)])
        }
    }

    /// A field holding `value`; the arrays, which no copied column holds, as NULL.
    func value(_ value: PostgresValue) {
        switch value {
        case .integer(let number): integer(number)
        case .double(let number): double(number)
        case .text(let string): text(string)
        case .bool(let flag): bool(flag)
        case .bytes(let data): bytes(data)
        case .null, .integerArray, .textArray: null()
        }
    }

    /// Ends the row; sends what has gathered once it is a chunk.
    func endRow() throws(PostgresError) {
        buffer.append(UInt8(ascii: "\n"))
        fieldsInRow = 0
        rows += 1
        if buffer.count >= Self.chunkBytes { try flush() }
    }

    /// Sends what has gathered.
    func flush() throws(PostgresError) {
        guard !buffer.isEmpty else { return }
        try connection.putCopyData(buffer)
        buffer.removeAll(keepingCapacity: true)
    }

    private func separate() {
        if fieldsInRow > 0 { buffer.append(UInt8(ascii: "\t")) }
        fieldsInRow += 1
    }
}
