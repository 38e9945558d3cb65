/// A value of a request body being read, with its path for error messages
/// (`operations[2].record.recordName`). `null` reads as absent, as CloudKit clients send
/// explicit nulls for keys they mean to leave out; unknown keys are never looked at.
public struct WireValue {
    /// The JSON value, or `nil` when the key is absent or `null`.
    public let json: JSONValue?
    /// The places of every value read from the same body, and this value's among them.
    private let places: WirePlaces
    private let place: Int

    /// Where the value sits in the request body.
    public var path: String { places.description(of: place) }

    public init(_ json: JSONValue?, path: String) {
        self.init(json, places: WirePlaces(root: path), place: 0)
    }

    private init(_ json: JSONValue?, places: WirePlaces, place: Int) {
        self.json = json?.nonNull
        self.places = places
        self.place = place
    }

    /// The whole body of a request.
    public static func body(_ json: JSONValue) -> WireValue { WireValue(json, path: "request") }

    /// Whether the value is present (and not `null`).
    public var isPresent: Bool { json != nil }

    /// The value under `key`, absent when this is not an object or lacks the key.
    public subscript(key: String) -> WireValue {
        WireValue(json?[key], places: places, place: places.add(.key(key), under: place))
    }

    /// A member of this object already in hand (while walking its pairs), named `key`.
    public func member(_ key: String, _ json: JSONValue) -> WireValue {
        WireValue(json, places: places, place: places.add(.key(key), under: place))
    }

    /// The first of two spellings of a key that is present (`numbersAsStrings`, `numberAsStrings`),
    /// else the absent first.
    public func first(_ key: String, _ other: String) -> WireValue {
        let value = self[key]
        if value.isPresent { return value }
        let second = self[other]
        return second.isPresent ? second : value
    }

    private func mistyped(_ expected: String) -> WireError {
        WireError("\(path) must be \(expected)")
    }

    /// The string, `nil` when absent.
    public func string() throws(WireError) -> String? {
        guard let json else { return nil }
        guard let string = json.stringValue else { throw mistyped("a string") }
        return string
    }

    /// The string, refusing absence.
    public func requiredString() throws(WireError) -> String {
        guard let string = try string() else { throw WireError("\(path) is required") }
        return string
    }

    /// A boolean; `0`/`1` and `"true"`/`"false"` are accepted as some clients send them.
    public func bool() throws(WireError) -> Bool? {
        guard let json else { return nil }
        if let flag = json.boolValue { return flag }
        if let number = json.int64Value, number == 0 || number == 1 { return number == 1 }
        if let text = json.stringValue, text == "true" || text == "false" { return text == "true" }
        throw mistyped("true or false")
    }

    /// An integer (a numeric string too).
    public func integer() throws(WireError) -> Int? {
        guard let json else { return nil }
        guard let value = json.int64Value(acceptingNumericString: true), let integer = Int(exactly: value) else {
            throw mistyped("an integer")
        }
        return integer
    }

    /// A number (a numeric string too).
    public func double() throws(WireError) -> Double? {
        guard let json else { return nil }
        guard let value = json.doubleValue(acceptingNumericString: true) else { throw mistyped("a number") }
        return value
    }

    /// The elements of an array, `nil` when absent.
    public func array() throws(WireError) -> [WireValue]? {
        guard let json else { return nil }
        guard let elements = json.arrayValue else { throw mistyped("an array") }
        return elements.enumerated().map { WireValue($0.element, places: places, place: places.add(.index($0.offset), under: place)) }
    }

    /// The elements of an array, refusing absence.
    public func requiredArray() throws(WireError) -> [WireValue] {
        guard let elements = try array() else { throw WireError("\(path) is required") }
        return elements
    }

    /// An array of strings, `nil` when absent.
    public func strings() throws(WireError) -> [String]? {
        guard let elements = try array() else { return nil }
        var strings: [String] = []
        for element in elements { strings.append(try element.requiredString()) }
        return strings
    }

    /// The object, `nil` when absent.
    public func object() throws(WireError) -> JSONObject? {
        guard let json else { return nil }
        guard let object = json.objectValue else { throw mistyped("an object") }
        return object
    }

    /// Refuses anything but an object (or absence).
    public func requireObjectIfPresent() throws(WireError) { _ = try object() }
}

/// Where each value read from one request body sits (`operations[2].record.recordName`), kept
/// as parts for all of them together: a request reads dozens to thousands of values, the text
/// is wanted only for an error, and a box of its own per value would be an allocation each.
/// Used by the one thread decoding the body.
private final class WirePlaces {
    enum Part {
        /// The whole body, or a value made on its own, by name.
        case named(String)
        case key(String)
        case index(Int)
    }

    /// Not checked for overlapping access at run time (a check per value read cost a fifth of
    /// reading it): only `add` writes it, with no other access to it in flight, on the one
    /// thread decoding the body.
    @exclusivity(unchecked) private var parts: [(parent: Int, part: Part)]

    init(root: String) {
        // Room made once, before the first part: a literal first would be a second buffer.
        parts = []
        parts.reserveCapacity(32)
        parts.append((-1, .named(root)))
    }

    /// Records a value at `part` under the value at `parent`; returns its place.
    func add(_ part: Part, under parent: Int) -> Int {
        parts.append((parent, part))
        return parts.count - 1
    }

    /// The place as text; a key directly under the whole body (`request`) is named alone.
    func description(of place: Int) -> String {
        let (parent, part) = parts[place]
        switch part {
        case .named(let name):
            return name
        case .key(let key):
            if case .named("request") = parts[parent].part { return key }
            return "\(description(of: parent)).\(key)"
        case .index(let index):
            return "\(description(of: parent))[\(index)]"
        }
    }
}

extension JSONValue {
    /// The value, or `nil` for `null`. (A plain `nil` in a closure returning `JSONValue?` would be
    /// read as `JSONValue.null`, since `JSONValue` is expressible by the nil literal.)
    public var nonNull: JSONValue? { isNull ? Optional.none : self }
}
