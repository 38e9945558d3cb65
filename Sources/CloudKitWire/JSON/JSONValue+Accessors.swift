// MARK: - Reading values

extension JSONValue {
    /// The value itself, with written text (``serialized(_:)``) read into the value it holds.
    public var resolved: JSONValue {
        if case .serialized(let text) = self { return text.value }
        return self
    }

    /// The string, when the value is a string.
    public var stringValue: String? {
        if case .string(let string) = resolved { return string }
        return nil
    }

    /// The value as an exact `Int64`: an integer, or a double that holds an integer exactly
    /// within the `Int64` range (`3.0`, `1e3`). `nil` for anything else, including `3.5`.
    public var int64Value: Int64? {
        switch resolved {
        case .integer(let integer):
            return integer
        case .double(let double):
            return Int64(exactly: double)
        default:
            return nil
        }
    }

    /// The value as an exact `Int64`, like ``int64Value``; with `acceptingNumericString`, also a
    /// string holding one JSON number, as CloudKit clients send numbers under `numbersAsStrings`.
    ///
    /// ```swift
    /// JSONValue.string("1422312944104").int64Value(acceptingNumericString: true)  // 1422312944104
    /// JSONValue.string(" 12").int64Value(acceptingNumericString: true)            // nil
    /// ```
    /// - Parameter acceptingNumericString: Whether a numeric string counts.
    /// - Returns: The integer, or `nil`.
    public func int64Value(acceptingNumericString: Bool) -> Int64? {
        if acceptingNumericString, case .string(let text) = resolved {
            return JSONNumber.parse(text)?.int64Value
        }
        return int64Value
    }

    /// The value as a `Double`: a double, or an integer converted to the nearest double.
    public var doubleValue: Double? {
        switch resolved {
        case .double(let double):
            return double
        case .integer(let integer):
            return Double(integer)
        default:
            return nil
        }
    }

    /// The value as a `Double`, like ``doubleValue``; with `acceptingNumericString`, also a
    /// string holding one JSON number (strict JSON grammar: no spaces, `+`, `NaN` or hex).
    /// - Parameter acceptingNumericString: Whether a numeric string counts.
    /// - Returns: The number, or `nil`.
    public func doubleValue(acceptingNumericString: Bool) -> Double? {
        if acceptingNumericString, case .string(let text) = resolved {
            return JSONNumber.parse(text)?.doubleValue
        }
        return doubleValue
    }

    /// The flag, when the value is `true` or `false`.
    public var boolValue: Bool? {
        if case .bool(let flag) = resolved { return flag }
        return nil
    }

    /// The elements, when the value is an array.
    public var arrayValue: [JSONValue]? {
        if case .array(let elements) = resolved { return elements }
        return nil
    }

    /// The object, when the value is an object.
    public var objectValue: JSONObject? {
        if case .object(let object) = resolved { return object }
        return nil
    }

    /// Whether the value is `null`.
    public var isNull: Bool {
        if case .null = resolved { return true }
        return false
    }

    /// The value for `key` when this is an object holding it; `nil` otherwise.
    ///
    /// ```swift
    /// body["zoneID"]?["zoneName"]?.stringValue
    /// ```
    public subscript(key: String) -> JSONValue? {
        if case .object(let object) = resolved { return object[key] }
        return nil
    }

    /// The element at `index` when this is an array long enough; `nil` otherwise.
    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = resolved, elements.indices.contains(index) { return elements[index] }
        return nil
    }
}
