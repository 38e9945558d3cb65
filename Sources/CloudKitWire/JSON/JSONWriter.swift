/// Writes compact JSON text as UTF-8.
///
/// Keys are written in the order the object holds them. Strings escape only what RFC 8259
/// requires (`"`, `\` and control characters; `/` and non-ASCII are written as they are).
/// Integers are exact; doubles use the shortest text that reads back as the same double and
/// always carry a `.` or an exponent, so a double never reads back as an integer. NaN and the
/// infinities, which JSON cannot express, are written as `null`.
struct JSONWriter {
    var output: [UInt8]

    init(capacity: Int = 256) {
        output = []
        output.reserveCapacity(capacity)
    }

    // Recursion here follows the value's own nesting: parsed values are at most
    // `JSONValue.defaultMaximumDepth` deep unless the caller allowed more.
    mutating func write(_ value: JSONValue) {
        switch value {
        case .null:
            append("null")
        case .bool(let flag):
            append(flag ? "true" : "false")
        case .integer(let integer):
            write(integer)
        case .double(let double):
            write(double)
        case .string(let string):
            write(string)
        case .array(let elements):
            writeArray(elements) { $0.write($1) }
        case .object(let object):
            output.append(UInt8(ascii: "{"))
            let keys = object.keys
            let values = object.values
            for position in keys.indices {
                if position > 0 { output.append(UInt8(ascii: ",")) }
                write(keys[position])
                output.append(UInt8(ascii: ":"))
                write(values[position])
            }
            output.append(UInt8(ascii: "}"))
        case .serialized(let text):
            output.append(contentsOf: text.bytes)
        }
    }

    /// Appends text known to be valid JSON in its place: punctuation and keys such as `{"recordName":`.
    mutating func append(_ literal: StaticString) {
        output.append(contentsOf: UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    mutating func write(_ integer: Int64) {
        // Digits are produced from the end into a small buffer, without going through String.
        var magnitude = integer.magnitude
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude != 0
            if integer < 0 { output.append(UInt8(ascii: "-")) }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
    }

    mutating func write(_ double: Double) {
        guard double.isFinite else {
            append("null")
            return
        }
        // Swift's description is the shortest round-trip form and always holds "." or "e"
        // ("1.0", "1e-05", "1e+16"), all of which are valid JSON numbers.
        output.append(contentsOf: double.description.utf8)
    }

    mutating func write(_ string: String) {
        output.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            var runStart = 0
            var index = 0
            while index < bytes.count {
                // Runs that need no escape are skipped eight bytes at a time.
                if index + 8 <= bytes.count, !JSONByteScan.mayNeedAttention(JSONByteScan.word(bytes, at: index)) {
                    index += 8
                    continue
                }
                let byte = bytes[index]
                if byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") {
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
                    writeEscape(byte)
                    runStart = index + 1
                }
                index += 1
            }
            output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart...]))
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Appends JSON text this writer wrote before (a zone ID written once for a page).
    mutating func append(bytes: [UInt8]) {
        output.append(contentsOf: bytes)
    }

    /// Writes an array of `elements`, each written by `element`.
    mutating func writeArray<Elements: Sequence>(_ elements: Elements, _ element: (inout JSONWriter, Elements.Element) -> Void) {
        output.append(UInt8(ascii: "["))
        var first = true
        for value in elements {
            if !first { output.append(UInt8(ascii: ",")) }
            first = false
            element(&self, value)
        }
        output.append(UInt8(ascii: "]"))
    }

    /// Appends one byte of punctuation: `,`, `:`, a bracket.
    mutating func append(_ byte: UInt8) {
        output.append(byte)
    }

    private mutating func writeEscape(_ byte: UInt8) {
        switch byte {
        case UInt8(ascii: "\""): append("\\\"")
        case UInt8(ascii: "\\"): append("\\\\")
        case 0x08: append("\\b")
        case 0x0C: append("\\f")
        case 0x0A: append("\\n")
        case 0x0D: append("\\r")
        case 0x09: append("\\t")
        default:
            let hexDigits: StaticString = "0123456789abcdef"
            append("\\u00")
            output.append(hexDigits.utf8Start[Int(byte >> 4)])
            output.append(hexDigits.utf8Start[Int(byte & 0x0F)])
        }
    }
}

// MARK: - Entry points

extension JSONValue {
    /// Writes the value as compact UTF-8 JSON text.
    ///
    /// ```swift
    /// let value: JSONValue = ["recordName": "A", "fields": [:]]
    /// value.serialized()  // {"recordName":"A","fields":{}}
    /// ```
    /// - Returns: The JSON text. NaN and infinite doubles are written as `null`.
    public func serialized() -> [UInt8] {
        // Text written before (a whole answer of records) is already what is asked for.
        if case .serialized(let text) = self { return text.bytes }
        var writer = JSONWriter(capacity: serializedCapacity)
        writer.write(self)
        return writer.output
    }

    /// Room for the text of a response, sized once: an answer is an object around text written
    /// before (a page of records), which a buffer grown as it is written would copy over again
    /// a time or two. Only the top level is looked at.
    private var serializedCapacity: Int {
        guard case .object(let object) = self else { return 256 }
        var length = 64
        for (key, value) in object {
            length += key.utf8.count + 4
            if case .serialized(let text) = value { length += text.bytes.count } else { length += 32 }
        }
        return length
    }

    /// Appends the value as compact UTF-8 JSON text to `output`.
    /// - Parameter output: The buffer to append to.
    public func serialize(into output: inout [UInt8]) {
        var writer = JSONWriter(capacity: 0)
        swap(&writer.output, &output)
        writer.write(self)
        swap(&writer.output, &output)
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String {
        String(decoding: serialized(), as: UTF8.self)
    }
}
