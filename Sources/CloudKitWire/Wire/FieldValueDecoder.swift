import CloudStore
import Foundation

/// Reads a Record Field Dictionary's `value` into a ``FieldValue``.
///
/// The `type` clients send is only a hint (clients send `INT`, `DATETIME`, `ASSET`, or nothing):
/// the field's declared type wins when the value can be read as it; then a known hint; then the
/// value's JSON shape. Numbers may come as strings (`numbersAsStrings`).
public struct FieldValueDecoder {
    /// A decoder.
    public init() {}

    /// Reads `value` for a field declared as `declared` (when the schema has it).
    /// - Returns: the value, or `nil` for `null` (the field is cleared).
    public func decode(_ value: WireValue, hint: String?, declared: FieldType?) throws(WireError) -> FieldValue? {
        try decode(value.json, hint: hint, declared: declared, at: value.path)
    }

    /// Reads `json` (`nil` for absent or `null`) for a field declared as `declared`; `path` names
    /// where the value sits in the body, for an error.
    /// - Returns: the value, or `nil` for `null` (the field is cleared).
    public func decode(
        _ json: JSONValue?, hint: String?, declared: FieldType?, at path: @autoclosure () -> String
    ) throws(WireError) -> FieldValue? {
        guard let json else { return nil }
        if let declared, let decoded = Self.read(json, as: declared) { return decoded }
        if let hint, let type = Self.type(named: hint) {
            if let decoded = Self.read(json, as: type) { return decoded }
            throw WireError("\(path()) is not a valid \(type.wireName) value")
        }
        if let inferred = Self.infer(json), let decoded = Self.read(json, as: inferred) { return decoded }
        if let declared {
            throw WireError("\(path()) is not a valid \(declared.wireName) value")
        }
        throw WireError("\(path()): cannot tell the value's type; give \"type\"")
    }

    /// A type named as clients name them: the wire names, and the spellings some clients use.
    public static func type(named hint: String) -> FieldType? {
        if let type = FieldType(wireName: hint) { return type }
        switch hint.uppercased() {
        case "ASSET": return .asset
        case "ASSET_LIST": return .list(.asset)
        case "INT", "INTEGER", "BOOLEAN", "BOOL": return .int64
        case "DATETIME", "DATE": return .timestamp
        case "BYTE", "DATA": return .bytes
        default: return nil
        }
    }

    /// The type a JSON value looks like, when it can be told.
    public static func infer(_ json: JSONValue) -> FieldType? {
        switch json {
        case .string: return .string
        case .integer, .bool: return .int64
        case .double: return .double
        case .object(let object):
            if object["recordName"] != nil { return .reference }
            if object["latitude"] != nil, object["longitude"] != nil { return .location }
            if ["fileChecksum", "receipt", "downloadURL", "size"].contains(where: { object[$0] != nil }) { return .asset }
            return nil
        case .array(let elements):
            var scalar: ScalarType?
            for element in elements where !element.isNull {
                guard let type = infer(element), !type.isList else { return nil }
                if scalar == nil || (scalar == .int64 && type.scalar == .double) {
                    scalar = type.scalar
                } else if scalar != type.scalar, !(scalar == .double && type.scalar == .int64) {
                    return nil
                }
            }
            return scalar.map { FieldType.list($0) }
        case .null: return nil
        case .serialized(let text): return infer(text.value)
        }
    }

    /// `json` read as `type`, or `nil` when it is not such a value.
    public static func read(_ json: JSONValue, as type: FieldType) -> FieldValue? {
        if type.isList {
            guard let elements = json.arrayValue else { return nil }
            var values: [FieldValue] = []
            values.reserveCapacity(elements.count)
            for element in elements {
                guard let value = read(element, as: FieldType(type.scalar)) else { return nil }
                values.append(value)
            }
            return .list(type.scalar, values)
        }
        switch type.scalar {
        case .string:
            return json.stringValue.map { .string($0) }
        case .int64:
            if let flag = json.boolValue { return .int64(flag ? 1 : 0) }
            return json.int64Value(acceptingNumericString: true).map { .int64($0) }
        case .double:
            return json.doubleValue(acceptingNumericString: true).map { .double($0) }
        case .timestamp:
            if let milliseconds = json.int64Value(acceptingNumericString: true) { return .timestamp(milliseconds) }
            if let milliseconds = json.doubleValue(acceptingNumericString: true), milliseconds.isFinite,
                abs(milliseconds) < 9.2e18
            {
                return .timestamp(Int64(milliseconds.rounded(.down)))
            }
            return nil
        case .bytes:
            return json.stringValue.flatMap(Self.base64).map { .bytes($0) }
        case .reference:
            return reference(json).map { .reference($0) }
        case .asset:
            return asset(json).map { .asset($0) }
        case .location:
            return location(json).map { .location($0) }
        }
    }

    /// Standard or URL-safe base64, padded or not.
    public static func base64(_ text: String) -> [UInt8]? {
        var normalized = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        while normalized.utf8.count % 4 != 0 { normalized += "=" }
        return Data(base64Encoded: normalized).map(Array.init)
    }

    /// A Reference Dictionary, or a bare record name.
    public static func reference(_ json: JSONValue) -> Reference? {
        if let name = json.stringValue { return name.isEmpty ? nil : Reference(recordName: name) }
        guard let object = json.objectValue, let name = object["recordName"]?.stringValue, !name.isEmpty else { return nil }
        var action = Reference.Action.none
        if let text = object["action"]?.stringValue {
            guard let parsed = Reference.Action(rawValue: text.uppercased()) else { return nil }
            action = parsed
        }
        var zoneID: ZoneID?
        if let zone = object["zoneID"], !zone.isNull {
            guard let parsed = ZoneWire.zoneID(zone, owner: nil) else { return nil }
            zoneID = parsed
        }
        return Reference(recordName: name, zoneID: zoneID, action: action)
    }

    /// An Asset Dictionary; `nil` when it is not one, or its `size` is not a byte count.
    public static func asset(_ json: JSONValue) -> Asset? {
        guard let object = json.objectValue else { return nil }
        func text(_ key: String) -> String? { object[key]?.stringValue }
        var size: Int64?
        if let given = object["size"]?.nonNull {
            guard let bytes = given.int64Value(acceptingNumericString: true), bytes >= 0 else { return nil }
            size = bytes
        }
        return Asset(
            fileChecksum: text("fileChecksum"), size: size,
            referenceChecksum: text("referenceChecksum"), wrappingKey: text("wrappingKey"), receipt: text("receipt"),
            downloadURL: text("downloadURL"))
    }

    public static func location(_ json: JSONValue) -> Location? {
        guard let object = json.objectValue,
            let latitude = object["latitude"]?.doubleValue(acceptingNumericString: true),
            let longitude = object["longitude"]?.doubleValue(acceptingNumericString: true)
        else { return nil }
        func number(_ key: String) -> Double? { object[key]?.doubleValue(acceptingNumericString: true) }
        return Location(
            latitude: latitude, longitude: longitude, horizontalAccuracy: number("horizontalAccuracy"),
            verticalAccuracy: number("verticalAccuracy"), altitude: number("altitude"), speed: number("speed"),
            course: number("course"), timestamp: object["timestamp"]?.int64Value(acceptingNumericString: true))
    }
}
