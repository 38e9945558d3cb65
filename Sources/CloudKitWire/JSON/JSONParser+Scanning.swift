/// The steps of the readers of known body shapes (`records/modify`, `records/lookup`,
/// `records/query`): the objects and arrays of the shape are walked here, and every key and plain
/// value is read by the parser's own code, so it is accepted, refused and decoded as in a tree.
/// Any step that meets something else throws ``notScanned()``, and the body is parsed as a tree
/// instead.
extension JSONParser {
    /// The body of `bytes`: its member `key` read by `read` (given the body's nesting limit), and
    /// its other members, in order, as the envelope; `nil` when any step finds something other
    /// than the shape it reads.
    static func scanBody<Member>(
        _ bytes: [UInt8], around key: String, _ read: (inout JSONParser, _ depthLimit: Int) throws(JSONParseError) -> Member
    ) -> (envelope: JSONValue, member: Member)? {
        bytes.withUnsafeBufferPointer { buffer in
            var parser = JSONParser(buffer, maximumDepth: JSONValue.defaultMaximumDepth, reservingStacks: false)
            let depthLimit = parser.maximumDepth
            return try? parser.readBody(around: key, depthLimit: depthLimit) { parser throws(JSONParseError) in
                try read(&parser, depthLimit)
            }
        }
    }

    /// A whole body: an object whose member `key` is read by `read`, each other member kept, in
    /// order, in the envelope. Refused when the member is missing, and when any key repeats.
    private mutating func readBody<Member>(
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
        guard try opens(UInt8(ascii: "{"), closedBy: UInt8(ascii: "}")) else { return }
        repeat {
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: "\"") else { throw notScanned() }
            let key = try parseString()
            skipWhitespace()
            guard position < input.count, input[position] == UInt8(ascii: ":") else { throw notScanned() }
            position += 1
            try member(&self, key)
        } while try continues(closedBy: UInt8(ascii: "}"))
    }

    /// An array whose elements `element` reads.
    mutating func readArray(_ element: (inout JSONParser) throws(JSONParseError) -> Void) throws(JSONParseError) {
        guard try opens(UInt8(ascii: "["), closedBy: UInt8(ascii: "]")) else { return }
        repeat {
            try element(&self)
        } while try continues(closedBy: UInt8(ascii: "]"))
    }

    /// Steps over `opener`; `false` when `closer` follows at once (an empty container).
    private mutating func opens(_ opener: UInt8, closedBy closer: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard position < input.count, input[position] == opener else { throw notScanned() }
        position += 1
        skipWhitespace()
        guard position < input.count, input[position] == closer else { return true }
        position += 1
        return false
    }

    /// Steps over the `,` after a member (`true`: another follows) or the container's `closer`.
    private mutating func continues(closedBy closer: UInt8) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard position < input.count else { throw notScanned() }
        switch input[position] {
        case UInt8(ascii: ","):
            position += 1
            return true
        case closer:
            position += 1
            return false
        default:
            throw notScanned()
        }
    }

    /// Steps over a `null` and says so; `false`, reading nothing, before anything else.
    mutating func readNull(inside containers: Int, depthLimit: Int) throws(JSONParseError) -> Bool {
        skipWhitespace()
        guard position < input.count else { throw notScanned() }
        guard input[position] == UInt8(ascii: "n") else { return false }
        guard case .null = try readPlainValue(inside: containers, depthLimit: depthLimit) else { throw notScanned() }
        return true
    }

    /// Marks a known member read, refusing it the second time: a repeated key counts only with
    /// its last value in a tree, which the readers leave to the tree.
    func once(_ seen: inout Bool) throws(JSONParseError) {
        guard !seen else { throw notScanned() }
        seen = true
    }

    /// A Record Field Dictionary's `value` (`nil` when absent or `null`) and `type`, as a record's
    /// field and a filter's `fieldValue` hold them; its members sit inside `containers`.
    mutating func readFieldDictionary(
        inside containers: Int, depthLimit: Int
    ) throws(JSONParseError) -> (value: JSONValue?, hint: String?) {
        var value: JSONValue?
        var hint: String?
        var seen = (value: false, hint: false)
        try readObject { parser, key throws(JSONParseError) in
            switch key {
            case "value":
                try parser.once(&seen.value)
                value = try parser.readPlainValue(inside: containers, depthLimit: depthLimit).nonNull
            case "type":
                try parser.once(&seen.hint)
                hint = try parser.readOptionalString(inside: containers, depthLimit: depthLimit)
            default:
                _ = try parser.readPlainValue(inside: containers, depthLimit: depthLimit)
            }
        }
        return (value, hint)
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

    /// Ends the scan: the body is read as a tree instead.
    func notScanned() -> JSONParseError {
        JSONParseError(offset: position, message: "not of the shape scanning reads")
    }
}
