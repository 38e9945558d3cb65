/// Base64 written and read on bytes, in the two alphabets tokens use: the standard one with
/// padding (web auth tokens, as CloudKit's look) and the URL-safe one without (sync tokens,
/// continuation markers). Tokens are opened and minted on every signed-in request, so no
/// `Data` or `String` round trip is paid for them.
enum Base64 {
    /// Which 64 characters, and whether the text is padded with `=` to a multiple of four.
    enum Alphabet {
        case standard
        case url

        fileprivate var digits: StaticString {
            switch self {
            case .standard: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
            case .url: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
            }
        }
    }

    /// The text of `bytes`.
    static func encode(_ bytes: [UInt8], _ alphabet: Alphabet) -> String {
        let digits = alphabet.digits.utf8Start
        let padded = alphabet == .standard
        let length = padded ? (bytes.count + 2) / 3 * 4 : (bytes.count * 4 + 2) / 3
        return String(unsafeUninitializedCapacity: length) { text in
            var out = 0
            var index = 0
            func put(_ sextet: UInt32) {
                text[out] = digits[Int(sextet & 0x3F)]
                out += 1
            }
            while index + 3 <= bytes.count {
                let group = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                put(group >> 18); put(group >> 12); put(group >> 6); put(group)
                index += 3
            }
            let rest = bytes.count - index
            if rest > 0 {
                let group = UInt32(bytes[index]) << 16 | (rest == 2 ? UInt32(bytes[index + 1]) << 8 : 0)
                put(group >> 18); put(group >> 12)
                if rest == 2 { put(group >> 6) }
                if padded {
                    for _ in rest..<3 {
                        text[out] = UInt8(ascii: "=")
                        out += 1
                    }
                }
            }
            return out
        }
    }

    /// The bytes of `text`; `nil` when it holds a character outside the alphabet, has the wrong
    /// length or padding, or leaves bits set past its last byte (so one value has one text).
    static func decode(_ text: some StringProtocol, _ alphabet: Alphabet) -> [UInt8]? {
        var text = String(text)
        return text.withUTF8 { decode($0, alphabet) }
    }

    private static func decode(_ text: UnsafeBufferPointer<UInt8>, _ alphabet: Alphabet) -> [UInt8]? {
        var count = text.count
        if alphabet == .standard {
            guard count % 4 == 0 else { return nil }
            if count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
            if count > 0, text[count - 1] == UInt8(ascii: "=") { count -= 1 }
        }
        guard count % 4 != 1 else { return nil }
        let table = alphabet == .standard ? standardValues : urlValues
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count * 3 / 4)
        var group: UInt32 = 0
        var held = 0
        for position in 0..<count {
            let value = table[Int(text[position])]
            guard value < 64 else { return nil }
            group = group << 6 | UInt32(value)
            held += 1
            if held == 4 {
                bytes.append(UInt8(truncatingIfNeeded: group >> 16))
                bytes.append(UInt8(truncatingIfNeeded: group >> 8))
                bytes.append(UInt8(truncatingIfNeeded: group))
                group = 0
                held = 0
            }
        }
        switch held {
        case 2:
            guard group & 0x0F == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 4))
        case 3:
            guard group & 0x03 == 0 else { return nil }
            bytes.append(UInt8(truncatingIfNeeded: group >> 10))
            bytes.append(UInt8(truncatingIfNeeded: group >> 2))
        default:
            break
        }
        return bytes
    }

    /// Each byte's value in the alphabet, 255 for a byte outside it.
    private static let standardValues = values(of: .standard)
    private static let urlValues = values(of: .url)

    private static func values(of alphabet: Alphabet) -> [UInt8] {
        var table = [UInt8](repeating: 255, count: 256)
        let digits = alphabet.digits.utf8Start
        for value in 0..<64 { table[Int(digits[value])] = UInt8(value) }
        return table
    }
}

/// URL-safe base64 without padding, for opaque tokens that travel in JSON and URLs.
enum Base64URL {
    static func encode(_ bytes: [UInt8]) -> String { Base64.encode(bytes, .url) }

    static func decode(_ text: String) -> [UInt8]? { Base64.decode(text, .url) }
}
