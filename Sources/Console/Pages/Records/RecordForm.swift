import CloudKitWire
import CloudStore
import Foundation

/// The create and edit form of a record: one input per user field, by type, read back into
/// the fields of a `records/modify` operation.
struct RecordForm {
    /// The form field holding a record field's value.
    static func inputName(_ field: String) -> String { "field." + field }

    /// The template values of the inputs, filled with `values` (what was typed, or the record's),
    /// each with the reason its value was refused, if it was (`problems`, by field name).
    /// - Parameter maximumFileBytes: the largest file an ASSET field takes, for its hint.
    static func inputs(
        for type: SchemaView.RecordType, values: [String: String], problems: [String: String] = [:], maximumFileBytes: Int = 0
    ) -> [[String: Any]] {
        type.userFields.map { field in
            let scalar = field.type.scalar
            var input: [String: Any] = [
                "name": field.name, "inputName": inputName(field.name), "id": "field-" + Self.identifier(field.name),
                "type": field.type.wireName, "value": values[field.name] ?? "",
            ]
            if let problem = problems[field.name] { input["problem"] = problem }
            if field.type.isList, field.type.scalar == .asset {
                input["isReadOnly"] = true
                input["hint"] = "A list of files is changed through the API."
            } else if field.type.isList {
                input["isList"] = true
                input["hint"] = "One \(scalar.rawValue.lowercased()) per line."
            } else {
                switch scalar {
                case .string: input["isText"] = true
                case .int64: input["isNumber"] = true; input["step"] = "1"
                case .double: input["isNumber"] = true; input["step"] = "any"
                case .timestamp: input["isTime"] = true
                case .reference:
                    input["isLine"] = true
                    input["picksRecord"] = true
                    input["hint"] = "The record name of the referenced record: type it or pick one of the zone's."
                case .location: input["isLine"] = true; input["hint"] = "latitude, longitude — for example 48.8584, 2.2945."
                case .bytes: input["isList"] = true; input["hint"] = "The bytes in base64."
                case .asset:
                    input["isFile"] = true
                    input["hint"] =
                        (values[field.name].map { _ in "Holds a file; choose another to replace it, or leave it to keep it." }
                            ?? "Choose a file to store in this field.") + " At most \(Formatting.bytes(Int64(maximumFileBytes)))."
                }
            }
            return input
        }
    }

    /// The typed values of a record, as the form shows them.
    static func values(of record: JSONValue, type: SchemaView.RecordType, timeZone: TimeZone) -> [String: String] {
        var values: [String: String] = [:]
        for field in type.userFields {
            guard let value = record["fields"]?[field.name]?["value"], value != .null else { continue }
            values[field.name] = FieldInput.text(value, field.type, timeZone: timeZone)
        }
        return values
    }

    /// What the form posted, per field.
    static func posted(_ request: ConsoleRequest, type: SchemaView.RecordType) -> [String: String] {
        var values: [String: String] = [:]
        for field in type.userFields { values[field.name] = request.field(inputName(field.name)) ?? "" }
        return values
    }

    /// The `fields` of a modify operation: each typed value read as its field's type; a field
    /// emptied that had a value is cleared (`null`); files are left as they are.
    /// - Parameter previous: The values the form was opened with; empty for a new record.
    /// - Throws: ``ConsoleError/badRequest(_:)`` listing every value that does not fit its field.
    static func fields(_ posted: [String: String], previous: [String: String], type: SchemaView.RecordType, timeZone: TimeZone)
        throws(ConsoleError) -> JSONValue
    {
        let (fields, problems) = read(posted, previous: previous, type: type, timeZone: timeZone)
        guard problems.isEmpty else { throw .badRequest(problems.map(\.reason).joined(separator: " ")) }
        return .object(fields)
    }

    /// The reason each posted value that does not fit its field was refused, by field name: what
    /// the form shows beside the field.
    static func problems(_ posted: [String: String], previous: [String: String], type: SchemaView.RecordType, timeZone: TimeZone)
        -> [String: String]
    {
        // One problem per field at most: each field is read once.
        Dictionary(
            uniqueKeysWithValues: read(posted, previous: previous, type: type, timeZone: timeZone).problems.map { ($0.field, $0.reason) })
    }

    /// The fields a modify writes, and the values that could not be read, in field order.
    private static func read(_ posted: [String: String], previous: [String: String], type: SchemaView.RecordType, timeZone: TimeZone)
        -> (fields: JSONObject, problems: [(field: String, reason: String)])
    {
        var fields = JSONObject()
        var problems: [(field: String, reason: String)] = []
        for field in type.userFields where field.type.scalar != .asset {
            let text = posted[field.name] ?? ""
            if text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                if previous[field.name] != nil { fields[field.name] = ["value": .null] }
                continue
            }
            if previous[field.name] == text { continue }
            do {
                fields[field.name] = [
                    "value": try FieldInput.value(text, field.type, field: field.name, timeZone: timeZone),
                    "type": .string(field.type.wireName),
                ]
            } catch {
                problems.append((field.name, error.description))
            }
        }
        return (fields, problems)
    }

    /// The ASSET fields of `type` the form posted a file for, each with the file.
    static func files(_ request: ConsoleRequest, type: SchemaView.RecordType) -> [(field: String, file: MultipartForm.File)] {
        type.userFields.compactMap { field in
            guard field.type == FieldType(.asset), let file = request.form.file(inputName(field.name)) else { return nil }
            return (field.name, file)
        }
    }

    /// Whether the form of `type` sends files, and so is posted as `multipart/form-data`.
    static func sendsFiles(_ type: SchemaView.RecordType) -> Bool { type.userFields.contains { $0.type == FieldType(.asset) } }

    /// A name usable in an HTML id.
    static func identifier(_ name: String) -> String {
        String(name.unicodeScalars.map { $0.properties.isAlphabetic || ("0"..."9").contains($0) ? Character($0) : "-" })
    }
}
