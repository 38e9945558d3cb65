import CloudStore
import Foundation

/// Writes a ``FieldValue`` as a Record Field Dictionary: `{"value": …, "type": "INT64"}`, with
/// `type` always present, and numbers as strings when the client asked (`numbersAsStrings`).
public struct FieldValueEncoder {
    /// Whether INT64, DOUBLE and TIMESTAMP values (list elements too) are written as strings.
    public var numbersAsStrings = false

    /// An encoder; `numbersAsStrings` writes numbers as strings, as clients ask with `numbersAsStrings`.
    public init(numbersAsStrings: Bool = false) { self.numbersAsStrings = numbersAsStrings }

    /// The field dictionary.
    public func encode(_ value: FieldValue) -> JSONValue {
        .object(JSONObject(uniqueKeys: ["value", "type"], values: [json(value), .string(value.type.wireName)]))
    }

    /// The bare value.
    public func json(_ value: FieldValue) -> JSONValue {
        switch value {
        case .string(let string): return .string(string)
        case .int64(let integer), .timestamp(let integer): return numbersAsStrings ? .string(String(integer)) : .integer(integer)
        case .double(let double): return numbersAsStrings ? .string(JSONValue.double(double).description) : .double(double)
        case .bytes(let bytes): return .string(Data(bytes).base64EncodedString())
        case .reference(let reference): return Self.reference(reference)
        case .asset(let asset): return Self.asset(asset)
        case .location(let value): return location(value)
        case .list(_, let elements): return .array(elements.map(json))
        }
    }

    public static func reference(_ reference: Reference) -> JSONValue {
        var object: JSONObject = ["recordName": .string(reference.recordName), "action": .string(reference.action.rawValue)]
        if let zoneID = reference.zoneID { object["zoneID"] = ZoneWire.json(zoneID) }
        return .object(object)
    }

    public static func asset(_ asset: Asset) -> JSONValue {
        var object = JSONObject()
        if let value = asset.fileChecksum { object["fileChecksum"] = .string(value) }
        if let value = asset.size { object["size"] = .integer(value) }
        if let value = asset.referenceChecksum { object["referenceChecksum"] = .string(value) }
        if let value = asset.wrappingKey { object["wrappingKey"] = .string(value) }
        if let value = asset.receipt { object["receipt"] = .string(value) }
        if let value = asset.downloadURL { object["downloadURL"] = .string(value) }
        return .object(object)
    }

    public func location(_ location: Location) -> JSONValue {
        func number(_ value: Double) -> JSONValue { numbersAsStrings ? .string(JSONValue.double(value).description) : .double(value) }
        var object: JSONObject = ["latitude": number(location.latitude), "longitude": number(location.longitude)]
        if let value = location.horizontalAccuracy { object["horizontalAccuracy"] = number(value) }
        if let value = location.verticalAccuracy { object["verticalAccuracy"] = number(value) }
        if let value = location.altitude { object["altitude"] = number(value) }
        if let value = location.speed { object["speed"] = number(value) }
        if let value = location.course { object["course"] = number(value) }
        if let value = location.timestamp { object["timestamp"] = numbersAsStrings ? .string(String(value)) : .integer(value) }
        return .object(object)
    }
}
