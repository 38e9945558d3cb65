/// A value of a request body being read, with its path for error messages
/// (`operations[2].record.recordName`). `null` reads as absent, as CloudKit clients send
/// explicit nulls for keys they mean to leave out; unknown keys are never looked at.
public struct WireValue {
    /// The JSON value, or `nil` when the key is absent or `null`.
    public let json: JSONValue?
    /// Where the value sits, kept as parts: requests read thousands of values, and the text is
    /// wanted only for an error.
    private let location: WirePath

    /// Where the value sits in the request body.
    public var path: String { location.description }

    public init(_ json: JSONValue?, path: String) {
        self.init(json, location: .named(path))
    }

    private init(_ json: JSONValue?, location: WirePath) {
        self.json = json?.nonNull
        self.location = location
    }

    /// The whole body of a request.
    public static func body(_ json: JSONValue) -> WireValue { WireValue(json, path: "request") }

    /// Whether the value is present (and not `null`).
    public var isPresent: Bool { json != nil }

    /// The value under `key`, absent when this is not an object or lacks the key.
    public subscript(key: String) -> WireValue {
        WireValue(json?[key], location: .key(location, key))
    }

    /// A member of this object already in hand (while walking its pairs), named `key`.
    public func member(_ key: String, _ json: JSONValue) -> WireValue {
        WireValue(json, location: .key(location, key))
    }

    /// The first of several spellings of a key that is present (`numbersAsStrings`, `numberAsStrings`).
    public func first(_ keys: String...) -> WireValue {
        keys.lazy.map { self[$0] }.first(where: \.isPresent) ?? self[keys[0]]
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
        return elements.enumerated().map { WireValue($0.element, location: .index(location, $0.offset)) }
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

/// A place in a request body: `operations[2].record.recordName`; a key directly under the
/// whole body (`request`) is named alone.
private indirect enum WirePath: CustomStringConvertible {
    case named(String)
    case key(WirePath, String)
    case index(WirePath, Int)

    var description: String {
        switch self {
        case .named(let name): name
        case .key(.named("request"), let key): key
        case .key(let parent, let key): "\(parent).\(key)"
        case .index(let parent, let index): "\(parent)[\(index)]"
        }
    }
}

extension JSONValue {
    /// The value, or `nil` for `null`. (A plain `nil` in a closure returning `JSONValue?` would be
    /// read as `JSONValue.null`, since `JSONValue` is expressible by the nil literal.)
    public var nonNull: JSONValue? { isNull ? Optional.none : self }
}
