/// Reading a JSON number (RFC 8259 §6) from bytes, shared by the parser and by the accessors
/// that accept numbers sent as strings.
enum JSONNumber {
    /// Powers of ten that a `Double` holds exactly: with a mantissa below 2^53 one multiplication
    /// or division by these is correctly rounded (Clinger's fast path), which covers nearly every
    /// number CloudKit traffic carries without going through text.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11,
        1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22,
    ]

    @inline(__always)
    private static func digit(_ byte: UInt8) -> UInt64? {
        let value = byte &- UInt8(ascii: "0")
        return value < 10 ? UInt64(value) : nil
    }

    /// Reads the number that starts at `start`, which must hold `-` or a digit.
    ///
    /// The number ends at the first byte the grammar does not allow; what follows is the
    /// caller's to judge. Integers without fraction or exponent that fit in `Int64` become
    /// ``JSONValue/integer(_:)``; every other number becomes ``JSONValue/double(_:)``, and a
    /// number too large for a finite `Double` is refused.
    /// - Parameters:
    ///   - input: The bytes.
    ///   - start: The offset of the number's first byte.
    /// - Returns: The value and the offset just past the number.
    /// - Throws: ``JSONParseError`` where the text breaks the number grammar.
    static func scan(
        _ input: UnsafeBufferPointer<UInt8>,
        at start: Int
    ) throws(JSONParseError) -> (value: JSONValue, end: Int) {
        let end = input.count
        var position = start
        let negative = input[position] == UInt8(ascii: "-")
        if negative { position += 1 }

        // value = mantissa × 10^exponent while at most 19 significant digits are kept
        // (every 19-digit number fits in UInt64); later digits only shift the exponent.
        var mantissa: UInt64 = 0
        var significantDigits = 0
        var exponent = 0
        var truncated = false

        guard position < end, let first = digit(input[position]) else {
            throw JSONParseError(offset: position, message: "expected a digit in number")
        }
        position += 1
        if first == 0 {
            if position < end, digit(input[position]) != nil {
                throw JSONParseError(offset: position - 1, message: "number has a leading zero")
            }
        } else {
            mantissa = first
            significantDigits = 1
            while position < end, let next = digit(input[position]) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ next
                    significantDigits += 1
                } else {
                    exponent += 1
                    truncated = truncated || next != 0
                }
                position += 1
            }
        }

        var isInteger = true
        if position < end, input[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            guard position < end, digit(input[position]) != nil else {
                throw JSONParseError(offset: position, message: "expected a digit after the decimal point")
            }
            while position < end, let next = digit(input[position]) {
                if significantDigits < 19 {
                    mantissa = mantissa &* 10 &+ next
                    exponent -= 1
                    if mantissa != 0 { significantDigits += 1 }
                } else {
                    truncated = truncated || next != 0
                }
                position += 1
            }
        }

        if position < end, input[position] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            position += 1
            var exponentNegative = false
            if position < end, input[position] == UInt8(ascii: "-") || input[position] == UInt8(ascii: "+") {
                exponentNegative = input[position] == UInt8(ascii: "-")
                position += 1
            }
            guard position < end, digit(input[position]) != nil else {
                throw JSONParseError(offset: position, message: "expected a digit in the exponent")
            }
            var written = 0
            while position < end, let next = digit(input[position]) {
                // Beyond this the value is 0 or out of range anyway; capping avoids overflow.
                if written < 1_000_000 { written = written * 10 + Int(next) }
                position += 1
            }
            exponent += exponentNegative ? -written : written
        }

        if isInteger, exponent == 0 {
            if negative {
                if mantissa <= UInt64(Int64.max) {
                    return (.integer(-Int64(mantissa)), position)
                }
                if mantissa == UInt64(Int64.max) + 1 {
                    return (.integer(.min), position)
                }
            } else if mantissa <= UInt64(Int64.max) {
                return (.integer(Int64(mantissa)), position)
            }
        }

        if !truncated, mantissa <= 1 << 53, exponent >= -22, exponent <= 22 {
            let magnitude = Double(mantissa)
            let value =
                exponent < 0
                ? magnitude / exactPowersOfTen[-exponent]
                : magnitude * exactPowersOfTen[exponent]
            return (.double(negative ? -value : value), position)
        }

        // The rare rest (long mantissas, large exponents) goes through the standard library's
        // correctly rounded conversion. The text is known to be a valid JSON number here.
        let text = String(decoding: UnsafeBufferPointer(rebasing: input[start..<position]), as: UTF8.self)
        guard let value = Double(text), value.isFinite else {
            throw JSONParseError(offset: start, message: "number is too large for a double")
        }
        return (.double(value), position)
    }

    /// Reads `text` as exactly one JSON number, with nothing before or after it.
    /// - Parameter text: The text, such as `"42"` or `"-1.5e3"`.
    /// - Returns: The number, or `nil` when `text` is not one JSON number.
    static func parse(_ text: String) -> JSONValue? {
        var text = text
        return text.withUTF8 { bytes -> JSONValue? in
            guard let first = bytes.first, first == UInt8(ascii: "-") || digit(first) != nil else { return nil }
            guard let (value, end) = try? scan(bytes, at: 0), end == bytes.count else { return nil }
            return value
        }
    }
}
