import CloudKitWire

/// A JSON document as it is to be written, for generated request bodies: members in the order
/// given and repeats allowed (which a ``JSONValue`` cannot hold), values as raw text.
public indirect enum GeneratedJSON: Sendable {
    /// JSON text written as it is (`"x"`, `1e3`, `null`), or anything else on purpose.
    case raw(String)
    /// An object's members, in order.
    case object([(String, GeneratedJSON)])
    /// An array's elements.
    case array([GeneratedJSON])

    /// The document as text, with whitespace between tokens chosen by `generator`.
    public func text(using generator: inout SeededGenerator) -> String {
        let space = [" ", "", "", "\n ", "\t"].randomElement(using: &generator)!
        switch self {
        case .raw(let text):
            return text
        case .object(let members):
            let inner = members.map { "\(space)\(Self.quoted($0.0))\(space):\($0.1.text(using: &generator))" }
            return "{" + inner.joined(separator: ",") + space + "}"
        case .array(let elements):
            return "[" + elements.map { space + $0.text(using: &generator) }.joined(separator: ",") + space + "]"
        }
    }

    /// An object of `members` in a random order, now and then with one of them repeated (one
    /// time in `repeatOneIn`: with the same value or with `other`'s, the last counting) or an
    /// `unknown` member of `other`'s added (one time in six).
    public static func shuffledObject(
        _ members: [(String, GeneratedJSON)], repeatOneIn: Int, other: (inout SeededGenerator) -> GeneratedJSON,
        using generator: inout SeededGenerator
    ) -> GeneratedJSON {
        var members = members
        if Int.random(in: 0..<repeatOneIn, using: &generator) == 0, let repeated = members.randomElement(using: &generator) {
            members.append(Bool.random(using: &generator) ? repeated : (repeated.0, other(&generator)))
        }
        if Int.random(in: 0..<6, using: &generator) == 0 { members.append(("unknown", other(&generator))) }
        return .object(members.shuffled(using: &generator))
    }

    /// `text` as a JSON string literal.
    public static func quoted(_ text: String) -> String { String(decoding: JSONValue.string(text).serialized(), as: UTF8.self) }

    /// Makes `rounds` bodies with `body` from a generator seeded with `seed` and hands each one's
    /// text to `check`, every third one mutated first (``mutated(_:using:)``); gives what `check`
    /// returned for the bodies as made and for the mutated ones, leaving out its `nil`s.
    public static func checkGenerated<Reading>(
        rounds: Int, seed: UInt64, body: (inout SeededGenerator) -> GeneratedJSON, check: ([UInt8]) -> Reading?
    ) -> (asMade: [Reading], mutated: [Reading]) {
        var generator = SeededGenerator(seed: seed)
        var asMade: [Reading] = []
        var mutated: [Reading] = []
        for round in 0..<rounds {
            let bytes = Array(body(&generator).text(using: &generator).utf8)
            if round % 3 == 2 {
                if let reading = check(Self.mutated(bytes, using: &generator)) { mutated.append(reading) }
            } else if let reading = check(bytes) {
                asMade.append(reading)
            }
        }
        return (asMade, mutated)
    }

    /// `bytes` with one or two bytes replaced, inserted or removed.
    public static func mutated(_ bytes: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = bytes
        for _ in 0..<Int.random(in: 1...2, using: &generator) where !bytes.isEmpty {
            let position = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: bytes[position] = Array(#"{}[]:,"\ 0n1"#.utf8).randomElement(using: &generator)!
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: position)
            default: bytes.remove(at: position)
            }
        }
        return bytes
    }

    /// A Record Field Dictionary's `value` of any kind clients send, now and then one of the
    /// wrong type or one whose type cannot be told.
    public static func fieldValue(using generator: inout SeededGenerator) -> GeneratedJSON {
        func pick<T>(_ choices: [T]) -> T { choices.randomElement(using: &generator)! }
        let scalars = [
            #""text""#, #""caf\u00e9 \"q\" \n""#, #""é""#, #""\ud83d\ude00""#, #""42""#, #""1.5""#, #""AAEC""#, #""-_8""#, #""""#,
            "0", "-7", "42", "1700000000000", "9223372036854775807", "9223372036854775808", "1.5", "-2.5e3", "1E400", "1e-400",
            "true", "false", "null",
        ]
        switch Int.random(in: 0..<11, using: &generator) {
        case 0..<6:
            return .raw(pick(scalars))
        case 10:
            // Values whose type cannot be told.
            return pick([.object([("a", .raw("1"))]), .array([.raw("1"), .raw(#""x""#)]), .array([.array([])])])
        case 6:
            return .array((0..<Int.random(in: 0...3, using: &generator)).map { _ in .raw(pick(scalars)) })
        case 7:
            return .object([("latitude", .raw(pick(["1", "2.5", #""3""#, "null"]))), ("longitude", .raw(pick(["4", "-1.5"])))])
        case 8:
            return .object([
                ("recordName", .raw(pick([#""n2""#, #""""#, "1"]))), ("action", .raw(pick([#""NONE""#, #""delete_self""#, #""bad""#]))),
            ])
        default:
            return .object([("fileChecksum", .raw(#""abc""#)), ("size", .raw(pick(["3", "-1", #""4""#, "null"])))])
        }
    }
}
