/// A strict RFC 8259 parser over UTF-8 bytes.
///
/// It never recurses: open arrays and objects live on explicit stacks, so hostile nesting costs
/// a bounded amount of heap and is refused past `maximumDepth` with an error, never a crash.
/// Values of open containers wait on one shared stack and move into their container when it
/// closes, so every array and object is allocated once, at its final size.
///
/// Choices where RFC 8259 leaves room:
/// - The input must be UTF-8 and strings must hold valid UTF-8; a byte order mark is refused.
/// - An escaped lone surrogate (`"\uD800"`) is refused: a Swift `String` cannot hold it, and
///   replacing it with U+FFFD would silently change the client's data.
/// - Duplicate keys: the last value wins, at the key's first position (see ``JSONObject``).
/// - Integers beyond the `Int64` range become doubles; numbers beyond the `Double` range are
///   refused.
struct JSONParser {
    let input: UnsafeBufferPointer<UInt8>
    /// How many arrays and objects the value being parsed may nest; readers of known shapes
    /// lower it for a value inside the containers they read themselves.
    var maximumDepth: Int
    var position = 0
    /// Finished values of the open containers, innermost last.
    private var pendingValues: [JSONValue] = []
    /// Keys of the open objects, innermost last; an object's key is pushed before its value.
    private var pendingKeys: [String] = []
    /// The open containers, innermost last.
    private var containers: [Container] = []
    /// Reused for strings with escapes.
    private var scratch: [UInt8] = []

    private struct Container {
        var isObject: Bool
        var firstValue: Int
        var firstKey: Int
    }

    /// A parser of `input`; `reservingStacks` makes room up front for a whole document's
    /// nesting, where a reader of known shapes that parses only its plain values has none to make.
    init(_ input: UnsafeBufferPointer<UInt8>, maximumDepth: Int, reservingStacks: Bool = true) {
        self.input = input
        self.maximumDepth = maximumDepth
        guard reservingStacks else { return }
        // Room up front for a request body's usual nesting, so the stacks do not grow a step at
        // a time on every request (a document needs at least two bytes per pending value).
        let room = min(32, input.count / 2)
        pendingValues.reserveCapacity(room)
        pendingKeys.reserveCapacity(room)
        containers.reserveCapacity(min(8, room))
    }

    /// Parses the whole input as one JSON value.
    mutating func parse() throws(JSONParseError) -> JSONValue {
        let value = try parseValue()
        skipWhitespace()
        guard position == input.count else {
            throw JSONParseError(offset: position, message: "unexpected data after the JSON value")
        }
        return value
    }

    /// Parses the one JSON value at `position` (after whitespace), leaving `position` just past
    /// it, whatever follows.
    mutating func parseValue() throws(JSONParseError) -> JSONValue {
        parsingValues: while true {
            var value: JSONValue
            skipWhitespace()
            guard position < input.count else {
                throw JSONParseError(offset: position, message: "unexpected end of input, expected a value")
            }
            switch input[position] {
            case UInt8(ascii: "{"):
                try open(isObject: true)
                skipWhitespace()
                if position < input.count, input[position] == UInt8(ascii: "}") {
                    position += 1
                    value = closeObject()
                } else {
                    try parseKeyAndColon()
                    continue parsingValues
                }
            case UInt8(ascii: "["):
                try open(isObject: false)
                skipWhitespace()
                if position < input.count, input[position] == UInt8(ascii: "]") {
                    position += 1
                    value = closeArray()
                } else {
                    continue parsingValues
                }
            case UInt8(ascii: "\""):
                value = .string(try parseString())
            case UInt8(ascii: "t"):
                try expectLiteral("true")
                value = .bool(true)
            case UInt8(ascii: "f"):
                try expectLiteral("false")
                value = .bool(false)
            case UInt8(ascii: "n"):
                try expectLiteral("null")
                value = .null
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let (number, end) = try JSONNumber.scan(input, at: position)
                position = end
                value = number
            case 0xEF where position == 0:
                throw JSONParseError(offset: 0, message: "a byte order mark is not allowed")
            case let byte:
                throw unexpected(byte, expected: "a value")
            }

            // Hand the finished value to its container; close every container that ends here.
            while let container = containers.last {
                pendingValues.append(value)
                skipWhitespace()
                guard position < input.count else {
                    let closer = container.isObject ? "'}'" : "']'"
                    throw JSONParseError(offset: position, message: "unexpected end of input, expected ',' or \(closer)")
                }
                let byte = input[position]
                if byte == UInt8(ascii: ",") {
                    position += 1
                    skipWhitespace()
                    if position < input.count,
                        input[position] == (container.isObject ? UInt8(ascii: "}") : UInt8(ascii: "]"))
                    {
                        throw JSONParseError(offset: position, message: "trailing comma")
                    }
                    if container.isObject { try parseKeyAndColon() }
                    continue parsingValues
                }
                if container.isObject {
                    guard byte == UInt8(ascii: "}") else { throw unexpected(byte, expected: "',' or '}'") }
                    position += 1
                    value = closeObject()
                } else {
                    guard byte == UInt8(ascii: "]") else { throw unexpected(byte, expected: "',' or ']'") }
                    position += 1
                    value = closeArray()
                }
            }
            return value
        }
    }

    // MARK: - Containers

    private mutating func open(isObject: Bool) throws(JSONParseError) {
        guard containers.count < maximumDepth else {
            throw JSONParseError(offset: position, message: "nesting is deeper than \(maximumDepth) levels")
        }
        containers.append(Container(isObject: isObject, firstValue: pendingValues.count, firstKey: pendingKeys.count))
        position += 1
    }

    private mutating func closeArray() -> JSONValue {
        let container = containers.removeLast()
        let isLast = containers.isEmpty
        return .array(Self.take(&pendingValues, from: container.firstValue, isLast: isLast))
    }

    private mutating func closeObject() -> JSONValue {
        let container = containers.removeLast()
        let isLast = containers.isEmpty
        let keys = Self.take(&pendingKeys, from: container.firstKey, isLast: isLast)
        let values = Self.take(&pendingValues, from: container.firstValue, isLast: isLast)
        return .object(JSONObject(keys: keys, values: values))
    }

    /// The elements of `stack` from `first` on, removed from it. The outermost container's are
    /// the whole stack, whose buffer is handed over as it is: copying it out would share the
    /// buffer, and emptying the stack then would copy it again, two allocations for nothing.
    private static func take<Element>(_ stack: inout [Element], from first: Int, isLast: Bool) -> [Element] {
        if isLast, first == 0 {
            defer { stack = [] }
            return stack
        }
        let taken = Array(stack[first...])
        stack.removeSubrange(first...)
        return taken
    }

    private mutating func parseKeyAndColon() throws(JSONParseError) {
        guard position < input.count else {
            throw JSONParseError(offset: position, message: "unexpected end of input, expected a string key")
        }
        guard input[position] == UInt8(ascii: "\"") else {
            throw unexpected(input[position], expected: "a string key")
        }
        pendingKeys.append(try parseString())
        skipWhitespace()
        guard position < input.count else {
            throw JSONParseError(offset: position, message: "unexpected end of input, expected ':'")
        }
        guard input[position] == UInt8(ascii: ":") else {
            throw unexpected(input[position], expected: "':'")
        }
        position += 1
    }

    // MARK: - Scalars

    @inline(__always)
    mutating func skipWhitespace() {
        while position < input.count {
            switch input[position] {
            case UInt8(ascii: " "), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "\t"):
                position += 1
            default:
                return
            }
        }
    }

    private mutating func expectLiteral(_ literal: StaticString) throws(JSONParseError) {
        let count = literal.utf8CodeUnitCount
        let start = literal.utf8Start
        for index in 0..<count {
            let offset = position + index
            guard offset < input.count else {
                throw JSONParseError(offset: offset, message: "unexpected end of input in literal '\(literal)'")
            }
            guard input[offset] == start[index] else {
                throw JSONParseError(offset: offset, message: "invalid literal, expected '\(literal)'")
            }
        }
        position += count
    }

    /// Parses the string whose opening quote is at `position`.
    mutating func parseString() throws(JSONParseError) -> String {
        let start = position + 1
        var index = start
        var highBits: UInt8 = 0
        while index < input.count {
            // Plain ASCII runs are skipped eight bytes at a time.
            if index + 8 <= input.count, !JSONByteScan.mayNeedAttention(JSONByteScan.word(input, at: index)) {
                index += 8
                continue
            }
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                return try makeString(UnsafeBufferPointer(rebasing: input[start..<index]), isValid: highBits < 0x80, at: start)
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(start: start, firstEscape: index, highBits: highBits)
            }
            if byte < 0x20 {
                throw controlCharacter(byte, at: index)
            }
            highBits |= byte
            index += 1
        }
        throw JSONParseError(offset: start - 1, message: "unterminated string")
    }

    /// Finishes a string that holds escapes, decoding it into `scratch`.
    /// `highBits` is the OR of the bytes before the first escape.
    private mutating func parseEscapedString(
        start: Int,
        firstEscape: Int,
        highBits: UInt8
    ) throws(JSONParseError) -> String {
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: UnsafeBufferPointer(rebasing: input[start..<firstEscape]))
        var index = firstEscape
        var highBits = highBits
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "\"") {
                position = index + 1
                // Escapes decode to valid UTF-8, so only raw non-ASCII bytes need validating.
                let isValid = highBits < 0x80
                return try scratch.withUnsafeBufferPointer { bytes throws(JSONParseError) in
                    try makeString(bytes, isValid: isValid, at: start)
                }
            }
            if byte < 0x20 {
                throw controlCharacter(byte, at: index)
            }
            guard byte == UInt8(ascii: "\\") else {
                highBits |= byte
                scratch.append(byte)
                index += 1
                continue
            }
            guard index + 1 < input.count else { break }
            let escaped = input[index + 1]
            switch escaped {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"):
                scratch.append(escaped)
            case UInt8(ascii: "b"): scratch.append(0x08)
            case UInt8(ascii: "f"): scratch.append(0x0C)
            case UInt8(ascii: "n"): scratch.append(0x0A)
            case UInt8(ascii: "r"): scratch.append(0x0D)
            case UInt8(ascii: "t"): scratch.append(0x09)
            case UInt8(ascii: "u"):
                index = try decodeUnicodeEscape(at: index)
                continue
            default:
                throw JSONParseError(offset: index, message: "invalid escape sequence in string")
            }
            index += 2
        }
        throw JSONParseError(offset: start - 1, message: "unterminated string")
    }

    /// Decodes `\uXXXX` at `index` (and its low surrogate when it is a high one) into `scratch`
    /// as UTF-8, returning the offset after it.
    private mutating func decodeUnicodeEscape(at index: Int) throws(JSONParseError) -> Int {
        let unit = try hexQuad(at: index + 2)
        var end = index + 6
        var scalarValue = UInt32(unit)
        switch unit {
        case 0xD800..<0xDC00:
            guard end + 1 < input.count, input[end] == UInt8(ascii: "\\"), input[end + 1] == UInt8(ascii: "u") else {
                throw JSONParseError(offset: index, message: "lone surrogate in \\u escape")
            }
            let low = try hexQuad(at: end + 2)
            guard (0xDC00..<0xE000).contains(low) else {
                throw JSONParseError(offset: index, message: "lone surrogate in \\u escape")
            }
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
            end += 6
        case 0xDC00..<0xE000:
            throw JSONParseError(offset: index, message: "lone surrogate in \\u escape")
        default:
            break
        }
        // Every value left here is a Unicode scalar: surrogates were handled above.
        let scalar = Unicode.Scalar(scalarValue)!
        scratch.append(contentsOf: UTF8.encode(scalar)!)
        return end
    }

    private func hexQuad(at offset: Int) throws(JSONParseError) -> UInt16 {
        var result: UInt16 = 0
        for index in offset..<(offset + 4) {
            guard index < input.count else {
                throw JSONParseError(offset: index, message: "unexpected end of input in \\u escape")
            }
            let byte = input[index]
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(offset: index, message: "invalid hex digit in \\u escape")
            }
            result = result << 4 | UInt16(nibble)
        }
        return result
    }

    /// Makes a string of `bytes`; `isValid` says they are known to be valid UTF-8 already.
    private func makeString(
        _ bytes: UnsafeBufferPointer<UInt8>,
        isValid: Bool,
        at start: Int
    ) throws(JSONParseError) -> String {
        if isValid {
            return String(decoding: bytes, as: UTF8.self)
        }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw JSONParseError(offset: start, message: "string is not valid UTF-8")
        }
        return string
    }

    // MARK: - Errors

    private func controlCharacter(_ byte: UInt8, at offset: Int) -> JSONParseError {
        JSONParseError(offset: offset, message: "control character \(Self.describe(byte)) must be escaped in a string")
    }

    private func unexpected(_ byte: UInt8, expected: String) -> JSONParseError {
        JSONParseError(offset: position, message: "unexpected \(Self.describe(byte)), expected \(expected)")
    }

    private static func describe(_ byte: UInt8) -> String {
        if byte >= 0x21, byte < 0x7F {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        let hex = String(byte, radix: 16, uppercase: true)
        return "byte 0x\(hex.count == 1 ? "0" + hex : hex)"
    }
}

// MARK: - Entry points

extension JSONValue {
    /// The nesting depth ``parse(_:maximumDepth:)`` allows unless told otherwise.
    public static let defaultMaximumDepth = 512

    /// Parses UTF-8 JSON text (RFC 8259, strictly).
    ///
    /// Refuses trailing commas, comments, `NaN` and `Infinity`, leading zeros, unescaped control
    /// characters, invalid UTF-8, escaped lone surrogates, a byte order mark, anything after the
    /// value, and nesting deeper than `maximumDepth`. Never crashes and never recurses.
    ///
    /// ```swift
    /// let body = try JSONValue.parse(requestBytes)
    /// ```
    /// - Parameters:
    ///   - bytes: The UTF-8 text.
    ///   - maximumDepth: How many arrays and objects may be nested inside each other.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the byte offset of the first problem.
    public static func parse(
        _ bytes: [UInt8],
        maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSONValue {
        try bytes.withUnsafeBufferPointer { buffer throws(JSONParseError) in
            var parser = JSONParser(buffer, maximumDepth: maximumDepth)
            return try parser.parse()
        }
    }

    /// Parses UTF-8 JSON text held in raw memory; see ``parse(_:maximumDepth:)-([UInt8],_)``.
    /// - Parameters:
    ///   - bytes: The UTF-8 text.
    ///   - maximumDepth: How many arrays and objects may be nested inside each other.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the byte offset of the first problem.
    public static func parse(
        _ bytes: UnsafeRawBufferPointer,
        maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSONValue {
        var parser = JSONParser(bytes.assumingMemoryBound(to: UInt8.self), maximumDepth: maximumDepth)
        return try parser.parse()
    }

    /// Parses JSON text given as a string; see ``parse(_:maximumDepth:)-([UInt8],_)``.
    /// - Parameters:
    ///   - text: The JSON text.
    ///   - maximumDepth: How many arrays and objects may be nested inside each other.
    /// - Returns: The value.
    /// - Throws: ``JSONParseError`` with the byte offset (in the text's UTF-8) of the first problem.
    public static func parse(
        _ text: String,
        maximumDepth: Int = defaultMaximumDepth
    ) throws(JSONParseError) -> JSONValue {
        var text = text
        // String.withUTF8 only rethrows untyped errors, so the outcome crosses it as a Result.
        let outcome = text.withUTF8 { buffer in
            Result { () throws(JSONParseError) -> JSONValue in
                var parser = JSONParser(buffer, maximumDepth: maximumDepth)
                return try parser.parse()
            }
        }
        return try outcome.get()
    }
}
