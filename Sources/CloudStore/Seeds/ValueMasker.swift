import Crypto

/// Replaces the values of personal fields with fakes of the same type and shape: a name by a
/// name, an email address by an address at an example domain, a phone number by digits in the
/// same layout, a location by a point a few kilometres away, free text by words of similar
/// lengths. Deterministic per value under its key (HMAC-SHA256), so that the same production
/// value always gives the same fake, in every field and every record, and what joined on it
/// still joins; never the value itself. Empty strings and bytes, which hold nothing, stay empty.
public struct ValueMasker: Sendable {
    private let mac: PreparedMAC

    /// A masker under `key` (a container's masking key: see ``CloudStore/maskingKey(of:)``).
    public init(key: [UInt8]) { mac = PreparedMAC(key: SymmetricKey(data: key)) }

    /// The fake that replaces `value` of a field called `fieldName`; references and assets,
    /// which cannot be faked, are `nil` (the field is left out of the copy).
    public func mask(_ value: FieldValue, fieldName: String) -> FieldValue? {
        switch value {
        case .string(let text): return .string(maskString(text, kind: FakeKind(fieldName: fieldName, value: text)))
        case .int64(let number): return .int64(maskInteger(number))
        case .double(let number): return .double(maskDouble(number))
        case .timestamp(let time): return .timestamp(maskTimestamp(time))
        case .bytes(let bytes): return .bytes(maskBytes(bytes))
        case .location(let location): return .location(maskLocation(location))
        case .reference, .asset: return nil
        case .list(let scalar, let elements):
            let masked = elements.compactMap { mask($0, fieldName: fieldName) }
            return masked.count == elements.count ? .list(scalar, masked) : nil
        }
    }

    // MARK: - Kinds of text

    /// What a text looks like it holds, from its shape first and its field's name next: the
    /// same address or number then becomes the same fake whichever field holds it.
    enum FakeKind: String {
        case email, phone, personName, address, text

        init(fieldName: String, value: String) {
            let name = fieldName.lowercased()
            if Self.looksLikeEmail(value) {
                self = .email
            } else if Self.looksLikePhone(value) {
                self = .phone
            } else if ["name", "author", "contact", "person", "owner", "user"].contains(where: name.contains) {
                self = .personName
            } else if ["address", "street", "city"].contains(where: name.contains) {
                self = .address
            } else {
                self = .text
            }
        }

        static func looksLikeEmail(_ value: String) -> Bool {
            let parts = value.split(separator: "@", omittingEmptySubsequences: false)
            return parts.count == 2 && !parts[0].isEmpty && parts[1].contains(".") && !value.contains(" ")
        }

        static func looksLikePhone(_ value: String) -> Bool {
            let digits = value.filter(\.isASCIIDigit).count
            return digits >= 7 && value.allSatisfy { $0.isASCIIDigit || " +-().".contains($0) }
        }
    }

    // MARK: - Masking

    private func maskString(_ text: String, kind: FakeKind) -> String {
        guard !text.isEmpty else { return text }
        // Text of nothing but spaces and punctuation has no word to replace: a word stands for it.
        guard text.contains(where: { $0.isLetter || $0.isNumber }) else {
            var stream = FakeStream(mac: mac, seed: Array(("s:" + text).utf8))
            return stream.pick(Self.words)
        }
        return distinct(from: text, "s:" + kind.rawValue + ":" + text) { stream in
            switch kind {
            case .email: Self.fakeEmail(&stream)
            case .phone: Self.fakeDigits(in: text, &stream)
            case .personName: Self.fakeName(like: text, &stream)
            case .address: Self.fakeAddress(&stream)
            case .text: Self.fakeText(like: text, &stream)
            }
        }
    }

    private func maskInteger(_ number: Int64) -> Int64 {
        distinct(from: number, "i:\(number)") { stream in
            // As many digits, the same sign.
            let digits = String(number.magnitude).count
            let low: UInt64 = digits == 1 ? 0 : Self.power(digits - 1)
            let high: UInt64 = digits >= 19 ? UInt64(Int64.max) : Self.power(digits) - 1
            let magnitude = Int64(low + stream.next() % (high - low + 1))
            return number < 0 ? -magnitude : magnitude
        }
    }

    private func maskDouble(_ number: Double) -> Double {
        guard number.isFinite else { return number.isNaN ? 0 : -number }
        return distinct(from: number, "d:\(number.bitPattern)") { stream in
            // Within half the value's size of it, with as many decimals as a price or a measure has.
            let factor = 0.5 + Double(stream.next() % 1_000_000) / 1_000_000
            let fake = number == 0 ? Double(stream.next() % 1000) / 100 : number * factor
            return abs(fake) < 1e12 ? (fake * 100).rounded() / 100 : fake
        }
    }

    private func maskTimestamp(_ time: Int64) -> Int64 {
        distinct(from: time, "t:\(time)") { stream in
            // Up to a year either way, to the second.
            let shift = Int64(stream.next() % (365 * 86_400)) * 1000 + 1000
            return stream.next() % 2 == 0 ? time &+ shift : time &- shift
        }
    }

    private func maskBytes(_ bytes: [UInt8]) -> [UInt8] {
        guard !bytes.isEmpty else { return bytes }
        return distinct(from: bytes, "b:" + bytes.map { String($0, radix: 16) }.joined(separator: ",")) { stream in
            (0..<bytes.count).map { _ in UInt8(truncatingIfNeeded: stream.next()) }
        }
    }

    private func maskLocation(_ location: Location) -> Location {
        let key = "l:\(location.latitude.bitPattern):\(location.longitude.bitPattern)"
        return distinct(from: location, key) { stream in
            // Between about half a kilometre and five away, as a place in the same town.
            func offset() -> Double {
                let size = 0.005 + Double(stream.next() % 45_000) / 1_000_000
                return stream.next() % 2 == 0 ? size : -size
            }
            var fake = location
            fake.latitude = min(max(location.latitude + offset(), -90), 90)
            fake.longitude = location.longitude + offset()
            if fake.longitude > 180 { fake.longitude -= 360 }
            if fake.longitude < -180 { fake.longitude += 360 }
            return fake
        }
    }

    /// The first fake `make` draws from the value's stream that is not `original`.
    private func distinct<T: Equatable>(from original: T, _ key: String, _ make: (inout FakeStream) -> T) -> T {
        var stream = FakeStream(mac: mac, seed: Array(key.utf8))
        while true {
            let fake = make(&stream)
            if fake != original { return fake }
        }
    }

    private static func power(_ exponent: Int) -> UInt64 { (0..<exponent).reduce(1) { value, _ in value * 10 } }
}

/// An endless stream of pseudo-random numbers drawn from one value: HMAC blocks of the value
/// and a counter.
struct FakeStream {
    private let mac: PreparedMAC
    private let seed: [UInt8]
    private var block: [UInt8] = []
    private var position = 0
    private var counter: UInt32 = 0

    init(mac: PreparedMAC, seed: [UInt8]) {
        self.mac = mac
        self.seed = seed
    }

    /// The next number.
    mutating func next() -> UInt64 {
        if position + 8 > block.count {
            block = mac.code(seed + withUnsafeBytes(of: counter.bigEndian, Array.init))
            counter &+= 1
            position = 0
        }
        let value = block[position..<position + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        position += 8
        return value
    }

    /// One of `choices`.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int(next() % UInt64(choices.count))] }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
