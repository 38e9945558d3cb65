import CloudKitWire
import CloudStore
import Foundation

/// Field values as people type them into the console's forms, read as the field's type into
/// the JSON the records actions take — and back, to fill a form with a record's values.
enum FieldInput {
    /// Reads one typed value of `scalar` type.
    /// - Throws: ``ConsoleError/badRequest(_:)`` saying what was expected.
    static func scalar(_ text: String, _ scalar: ScalarType, field: String, timeZone: TimeZone) throws(ConsoleError) -> JSONValue {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        switch scalar {
        case .string:
            return .string(text)
        case .int64:
            guard let value = Int64(trimmed) else { throw .badRequest("\(field): '\(trimmed)' is not a whole number.") }
            return .integer(value)
        case .double:
            guard let value = Double(trimmed), value.isFinite else { throw .badRequest("\(field): '\(trimmed)' is not a number.") }
            return .double(value)
        case .timestamp:
            guard let value = Formatting.parseTime(trimmed, in: timeZone) else {
                throw .badRequest("\(field): '\(trimmed)' is not a time; write it as 2026-11-24 14:05 or 2026-11-24T14:05:00Z.")
            }
            return .integer(value)
        case .reference:
            guard !trimmed.isEmpty else { throw .badRequest("\(field): a reference needs a record name.") }
            return ["recordName": .string(trimmed), "action": "NONE"]
        case .location:
            let parts = trimmed.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            guard parts.count == 2, let latitude = Double(parts[0]), let longitude = Double(parts[1]),
                (-90...90).contains(latitude), (-180...180).contains(longitude)
            else {
                throw .badRequest("\(field): '\(trimmed)' is not a location; write latitude, longitude as 48.8584, 2.2945.")
            }
            return ["latitude": .double(latitude), "longitude": .double(longitude)]
        case .bytes:
            guard let data = Data(base64Encoded: trimmed) else { throw .badRequest("\(field): the bytes must be written in base64.") }
            return .string(data.base64EncodedString())
        case .asset:
            throw .badRequest("\(field): files are uploaded through the API; the console shows them but does not take them.")
        }
    }

    /// Reads a value typed for a field of `type`: a list one element per line (or separated by
    /// commas when `commaSeparated`, as filter values are).
    static func value(_ text: String, _ type: FieldType, field: String, timeZone: TimeZone, commaSeparated: Bool = false)
        throws(ConsoleError) -> JSONValue
    {
        guard type.isList else { return try scalar(text, type.scalar, field: field, timeZone: timeZone) }
        let byComma = commaSeparated && type.scalar != .location
        var elements: [JSONValue] = []
        // Browsers send a textarea's lines ending in "\r\n", which Swift reads as one Character:
        // splitting on isNewline takes both endings.
        for line in text.split(whereSeparator: { byComma ? $0 == "," : $0.isNewline }) {
            let element = type.scalar == .string ? String(line) : line.trimmingCharacters(in: .whitespacesAndNewlines)
            if element.isEmpty { continue }
            elements.append(
                try scalar(
                    commaSeparated && type.scalar == .string ? element.trimmingCharacters(in: .whitespaces) : element,
                    type.scalar, field: field, timeZone: timeZone))
        }
        return .array(elements)
    }

    /// The text a form shows for a stored value, which ``value(_:_:field:timeZone:commaSeparated:)`` reads back.
    static func text(_ value: JSONValue, _ type: FieldType, timeZone: TimeZone) -> String {
        if type.isList {
            return (value.arrayValue ?? []).map { text($0, FieldType(type.scalar), timeZone: timeZone) }.joined(separator: "\n")
        }
        switch type.scalar {
        case .string, .bytes: return value.stringValue ?? ""
        case .int64: return value.int64Value(acceptingNumericString: true).map { String($0) } ?? ""
        case .double: return value.doubleValue(acceptingNumericString: true).map { JSONValue.double($0).description } ?? ""
        case .timestamp: return value.int64Value(acceptingNumericString: true).map { Formatting.localInput($0, in: timeZone) } ?? ""
        case .reference: return value["recordName"]?.stringValue ?? ""
        case .location:
            let latitude = value["latitude"]?.doubleValue(acceptingNumericString: true) ?? 0
            let longitude = value["longitude"]?.doubleValue(acceptingNumericString: true) ?? 0
            return "\(JSONValue.double(latitude).description), \(JSONValue.double(longitude).description)"
        case .asset: return value["downloadURL"]?.stringValue ?? value["fileChecksum"]?.stringValue ?? ""
        }
    }
}
