import CloudStore
import Foundation

/// Writes a ``FieldValue`` as a Record Field Dictionary: `{"value": …, "type": "INT64"}`, with
/// `type` always present, and numbers as strings when the client asked (`numbersAsStrings`).
///
/// Values are written straight into JSON text; the `JSONValue` forms hold that text.
public struct FieldValueEncoder {
    /// Whether INT64, DOUBLE and TIMESTAMP values (list elements too) are written as strings.
    public var numbersAsStrings = false

    /// An encoder; `numbersAsStrings` writes numbers as strings, as clients ask with `numbersAsStrings`.
    public init(numbersAsStrings: Bool = false) { self.numbersAsStrings = numbersAsStrings }

    /// The field dictionary.
    public func encode(_ value: FieldValue) -> JSONValue {
        Self.text { write(value, into: &$0) }
    }

    /// The bare value.
    public func json(_ value: FieldValue) -> JSONValue {
        Self.text { writeBare(value, into: &$0) }
    }

    /// A Reference Dictionary: `recordName`, `action`, and `zoneID` when it names one.
    public static func reference(_ reference: Reference) -> JSONValue {
        text { writeReference(reference, into: &$0) }
    }

    /// An Asset Dictionary with the parts the asset has.
    public static func asset(_ asset: Asset) -> JSONValue {
        text { writeAsset(asset, into: &$0) }
    }

    /// A Location Dictionary with the parts the location has.
    public func location(_ location: Location) -> JSONValue {
        Self.text { writeLocation(location, into: &$0) }
    }

    private static func text(_ write: (inout JSONWriter) -> Void) -> JSONValue {
        var writer = JSONWriter(capacity: 64)
        write(&writer)
        return .serialized(JSONText(writtenBy: writer))
    }

    // MARK: - Writing

    /// Writes the field dictionary.
    func write(_ value: FieldValue, into writer: inout JSONWriter) {
        writer.append(#"{"value":"#)
        writeBare(value, into: &writer)
        writer.append(#","type":"#)
        writer.write(value.type.wireName)
        writer.append(UInt8(ascii: "}"))
    }

    /// Writes the bare value.
    func writeBare(_ value: FieldValue, into writer: inout JSONWriter) {
        switch value {
        case .string(let string): writer.write(string)
        case .int64(let integer), .timestamp(let integer): writeInteger(integer, into: &writer)
        case .double(let double): writeDouble(double, into: &writer)
        case .bytes(let bytes): writer.write(Data(bytes).base64EncodedString())
        case .reference(let reference): Self.writeReference(reference, into: &writer)
        case .asset(let asset): Self.writeAsset(asset, into: &writer)
        case .location(let value): writeLocation(value, into: &writer)
        case .list(_, let elements): writer.writeArray(elements) { writeBare($1, into: &$0) }
        }
    }

    private func writeInteger(_ integer: Int64, into writer: inout JSONWriter) {
        if numbersAsStrings { writer.write(String(integer)) } else { writer.write(integer) }
    }

    private func writeDouble(_ double: Double, into writer: inout JSONWriter) {
        // As a string, the text the number would have had: "1.5", or "null" for what JSON lacks.
        if numbersAsStrings { writer.write(JSONValue.double(double).description) } else { writer.write(double) }
    }

    private static func writeReference(_ reference: Reference, into writer: inout JSONWriter) {
        writer.append(#"{"recordName":"#)
        writer.write(reference.recordName)
        writer.append(#","action":"#)
        writer.write(reference.action.rawValue)
        if let zoneID = reference.zoneID {
            writer.append(#","zoneID":"#)
            ZoneWire.write(zoneID, into: &writer)
        }
        writer.append(UInt8(ascii: "}"))
    }

    private static func writeAsset(_ asset: Asset, into writer: inout JSONWriter) {
        var first = true
        writer.append(UInt8(ascii: "{"))
        if let value = asset.fileChecksum {
            writer.member("fileChecksum", first: &first)
            writer.write(value)
        }
        if let value = asset.size {
            writer.member("size", first: &first)
            writer.write(value)
        }
        for (key, value) in [
            ("referenceChecksum", asset.referenceChecksum), ("wrappingKey", asset.wrappingKey), ("receipt", asset.receipt),
            ("downloadURL", asset.downloadURL),
        ] {
            guard let value else { continue }
            writer.member(key, first: &first)
            writer.write(value)
        }
        writer.append(UInt8(ascii: "}"))
    }

    private func writeLocation(_ location: Location, into writer: inout JSONWriter) {
        var first = true
        writer.append(UInt8(ascii: "{"))
        for (key, value) in [
            ("latitude", location.latitude), ("longitude", location.longitude),
            ("horizontalAccuracy", location.horizontalAccuracy), ("verticalAccuracy", location.verticalAccuracy),
            ("altitude", location.altitude), ("speed", location.speed), ("course", location.course),
        ] {
            guard let value else { continue }
            writer.member(key, first: &first)
            writeDouble(value, into: &writer)
        }
        if let value = location.timestamp {
            writer.member("timestamp", first: &first)
            writeInteger(value, into: &writer)
        }
        writer.append(UInt8(ascii: "}"))
    }
}

extension JSONWriter {
    /// Starts a member of an object whose members are each optional: a comma unless it is
    /// the first, then the key and a colon; its value is written next.
    mutating func member(_ key: String, first: inout Bool) {
        if !first { append(UInt8(ascii: ",")) }
        first = false
        write(key)
        append(UInt8(ascii: ":"))
    }
}
