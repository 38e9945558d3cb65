import CloudStore

/// A `records/lookup` body read straight from its bytes, without a JSON tree, when it has the
/// shape clients send: record names, bare or as dictionaries with their own `desiredKeys`.
///
/// As with ``ScannedModifyBody``, scanning accepts only bodies that the tree reader reads to the
/// same lookups without error; for anything else it gives `nil`, and the body is parsed as a tree.
public struct ScannedLookupBody: Sendable {
    /// The body's members other than `records`, in order, each as the JSON parser reads it.
    public let envelope: JSONValue
    /// The records asked for, in order.
    public let lookups: [RecordLookup]

    /// The body of `bytes`, or `nil` when it is not of the shape scanning reads.
    public static func scan(_ bytes: [UInt8]) -> ScannedLookupBody? {
        JSONParser.scanBody(bytes, around: "records") { parser, depthLimit throws(JSONParseError) in
            try parser.readLookups(depthLimit: depthLimit)
        }
        .map { ScannedLookupBody(envelope: $0.envelope, lookups: $0.member) }
    }
}

extension JSONParser {
    /// `records`: record names, or dictionaries with a `recordName` and maybe `desiredKeys`
    /// (their members sit inside the body, the array and themselves).
    fileprivate mutating func readLookups(depthLimit: Int) throws(JSONParseError) -> [RecordLookup] {
        var lookups: [RecordLookup] = []
        try readArray { parser throws(JSONParseError) in
            parser.skipWhitespace()
            guard parser.position < parser.input.count else { throw parser.notScanned() }
            if parser.input[parser.position] == UInt8(ascii: "\"") {
                lookups.append(RecordLookup(try parser.parseString()))
                return
            }
            var name: String?
            var desiredKeys: [String]?
            var hasDesiredKeys = false
            try parser.readObject { parser, key throws(JSONParseError) in
                switch key {
                case "recordName":
                    guard name == nil, case .string(let given) = try parser.readPlainValue(inside: 3, depthLimit: depthLimit) else {
                        throw parser.notScanned()
                    }
                    name = given
                case "desiredKeys":
                    try parser.once(&hasDesiredKeys)
                    desiredKeys = try parser.readStrings(inside: 3, depthLimit: depthLimit)
                default:
                    _ = try parser.readPlainValue(inside: 3, depthLimit: depthLimit)
                }
            }
            guard let name else { throw parser.notScanned() }
            lookups.append(RecordLookup(name, desiredKeys: desiredKeys))
        }
        return lookups
    }
}
