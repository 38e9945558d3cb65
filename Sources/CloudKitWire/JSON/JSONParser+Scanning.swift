/// The steps of the readers of known body shapes (`records/modify`, `records/lookup`): the
/// objects and arrays of the shape are walked here, and every key and plain value is read by the
/// parser's own code, so it is accepted, refused and decoded as in a tree. Any step that meets
/// something else throws ``notScanned()``, and the body is parsed as a tree instead.
extension JSONParser {
    /// A whole body: an object whose member `key` is read by `read`, each other member kept, in
    /// order, in the envelope. Refused when the member is missing, and when any key repeats.
    mutating func readBody<Member>(
        around key: String, depthLimit: Int, _ read: (inout JSONParser) throws(JSONParseError) -> Member
    ) throws(JSONParseError) -> (envelope: JSONValue, member: Member) {
        var keys: [String] = []
        var values: [JSONValue] = []
        var member: Member?
        try readObject { parser, name throws(JSONParseError) in
            if name == key {
                guard member == nil else { throw parser.notScanned() }
                member = try read(&parser)
            } else {
                guard !keys.contains(name) else { throw parser.notScanned() }
                keys.append(name)
                values.append(try parser.readPlainValue(inside: 1, depthLimit: depthLimit))
            }
        }
        skipWhitespace()
        guard position == input.count, let member else { throw notScanned() }
        return (.object(JSONObject(keys: keys, values: values)), member)
    }

    /// An object whose members `member` reads (the parser just past the key's colon).
    mutating func readObject(
        _ member: (inout JSONParser, String) throws(JSONParseError) -> Void
    ) throws(JSONParseError) {
        skipWhitespace()
        guard position < input.count, input[position] == UInt8(ascii: "{") else { throw notScanned() }
        position += 1
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "}") {
            position += 1
            return
        }
        while true {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\"") else { throw notScanned() }
            let key = try parseString()
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { throw notScanned() }
            position += 1
            try member(&self, key)
            skipWhitespace()
            guard position < input.count else { throw notScanned() }
            switch input[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "}"):
                position += 1
                return
            default: throw notScanned()
            }
        }
    }

    /// An array whose elements `element` reads.
    mutating func readArray(_ element: (inout JSONParser) throws(JSONParseError) -> Void) throws(JSONParseError) {
        skipWhitespace()
        guard position < input.count, input[position] == UInt8(ascii: "[") else { throw notScanned() }
        position += 1
        skipWhitespace()
        if position < input.count, input[position] == UInt8(ascii: "]") {
            position += 1
            return
        }
        while true {
            try element(&self)
            skipWhitespace()
            guard position < input.count else { throw notScanned() }
            switch input[position] {
            case UInt8(ascii: ","): position += 1
            case UInt8(ascii: "]"):
                position += 1
                return
            default: throw notScanned()
            }
        }
    }

    /// Any JSON value, read as the tree parser reads it, lying inside `containers` of the body's
    /// containers: it may nest only as deep as it could in the whole body.
    mutating func readPlainValue(inside containers: Int, depthLimit: Int) throws(JSONParseError) -> JSONValue {
        maximumDepth = depthLimit - containers
        return try parseValue()
    }

    /// A string, or `nil` for `null`.
    mutating func readOptionalString(inside containers: Int, depthLimit: Int) throws(JSONParseError) -> String? {
        switch try readPlainValue(inside: containers, depthLimit: depthLimit) {
        case .null: return nil
        case .string(let string): return string
        default: throw notScanned()
        }
    }

    /// An array of strings, or `nil` for `null`.
    mutating func readStrings(inside containers: Int, depthLimit: Int) throws(JSONParseError) -> [String]? {
        switch try readPlainValue(inside: containers, depthLimit: depthLimit) {
        case .null:
            return nil
        case .array(let elements):
            var strings: [String] = []
            strings.reserveCapacity(elements.count)
            for element in elements {
                guard case .string(let string) = element else { throw notScanned() }
                strings.append(string)
            }
            return strings
        default:
            throw notScanned()
        }
    }

    /// A `desiredKeys` member (strings, or `nil` for `null`); refused when `seen` says its object
    /// had one already.
    mutating func readDesiredKeys(seen: inout Bool, inside containers: Int, depthLimit: Int) throws(JSONParseError) -> [String]? {
        guard !seen else { throw notScanned() }
        seen = true
        return try readStrings(inside: containers, depthLimit: depthLimit)
    }

    /// Ends the scan: the body is read as a tree instead.
    func notScanned() -> JSONParseError {
        JSONParseError(offset: position, message: "not of the shape scanning reads")
    }
}
