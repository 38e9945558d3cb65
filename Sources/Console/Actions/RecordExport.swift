import CloudKitWire
import Foundation

/// The records of a query written out for download: a JSON array of CloudKit record
/// dictionaries, or CSV with one row per record and one column per field.
public struct RecordExport: Sendable {
    /// The formats an export comes in.
    public enum Format: String, Sendable, CaseIterable {
        case json, csv
    }

    /// The most records one export holds; past it the export says it was cut short.
    public static let maximumRecords = 100_000

    /// The format.
    public let format: Format
    /// The records, as the API writes them.
    public let records: [JSONValue]
    /// The record type's fields, in schema order: the CSV's field columns.
    public let fieldNames: [String]
    /// Whether more records matched than ``maximumRecords``.
    public let truncated: Bool

    /// The media type to send the file as.
    public var contentType: String {
        switch format {
        case .json: "application/json; charset=utf-8"
        case .csv: "text/csv; charset=utf-8"
        }
    }

    /// The file's bytes.
    public var bytes: [UInt8] {
        switch format {
        case .json:
            var object: JSONObject = ["records": .array(records)]
            if truncated { object["truncated"] = .bool(true) }
            return JSONValue.object(object).serialized()
        case .csv:
            return Array(csv.utf8)
        }
    }

    private var csv: String {
        let system = ["recordName", "recordType", "recordChangeTag", "created", "modified", "zoneName"]
        var columns = fieldNames
        // Fields set on records but no longer (or never) declared still get a column.
        var known = Set(columns)
        for record in records {
            for name in (record["fields"]?.objectValue?.keys ?? []) where known.insert(name).inserted { columns.append(name) }
        }
        var lines = [(system + columns).map(Self.cell).joined(separator: ",")]
        for record in records {
            var row: [String] = [
                record["recordName"]?.stringValue ?? "", record["recordType"]?.stringValue ?? "",
                record["recordChangeTag"]?.stringValue ?? "",
                Self.isoTime(record["created"]?["timestamp"]), Self.isoTime(record["modified"]?["timestamp"]),
                record["zoneID"]?["zoneName"]?.stringValue ?? "",
            ]
            for name in columns { row.append(Self.text(record["fields"]?[name])) }
            lines.append(row.map(Self.cell).joined(separator: ","))
        }
        return lines.joined(separator: "\r\n") + "\r\n"
    }

    /// A field dictionary as one CSV value: text and numbers as they are, times in ISO 8601
    /// (UTC), references by record name, locations as `latitude,longitude`, lists as JSON.
    private static func text(_ field: JSONValue?) -> String {
        guard let field, let value = field["value"], value != .null else { return "" }
        let type = field["type"]?.stringValue ?? ""
        if type.hasSuffix("_LIST") { return String(decoding: value.serialized(), as: UTF8.self) }
        switch type {
        case "TIMESTAMP": return isoTime(value)
        case "REFERENCE": return value["recordName"]?.stringValue ?? ""
        case "LOCATION":
            return
                "\(value["latitude"]?.doubleValue(acceptingNumericString: true) ?? 0),\(value["longitude"]?.doubleValue(acceptingNumericString: true) ?? 0)"
        case "ASSETID": return value["downloadURL"]?.stringValue ?? value["fileChecksum"]?.stringValue ?? ""
        default:
            if let string = value.stringValue { return string }
            return String(decoding: value.serialized(), as: UTF8.self)
        }
    }

    private static func isoTime(_ milliseconds: JSONValue?) -> String {
        guard let milliseconds = milliseconds?.int64Value(acceptingNumericString: true) else { return "" }
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return formatter.string(from: Date(timeIntervalSince1970: Double(milliseconds) / 1000))
    }

    /// One CSV cell (RFC 4180), always quoted, with its quotes doubled. Each line of the value
    /// that a spreadsheet would run as a formula (`=`, `+`, `-`, `@` or tab first, or a carriage
    /// return opening the value) is opened with `'`, so an exported record cannot run code in the
    /// operator's spreadsheet. Read by Unicode scalar: a quote, comma or line break followed by
    /// a combining mark is still one to a CSV reader (security review N5).
    static func cell(_ value: String) -> String {
        var cell = String.UnicodeScalarView()
        cell.append("\"")
        var line = String.UnicodeScalarView()
        func endLine() {
            if let first = line.first, formulaStarts.contains(first), Double(String(line)) == nil { cell.append("'") }
            for scalar in line {
                if scalar == "\"" { cell.append("\"") }
                cell.append(scalar)
            }
            line = String.UnicodeScalarView()
        }
        if value.unicodeScalars.first == "\r" { cell.append("'") }
        for scalar in value.unicodeScalars {
            if scalar == "\r" || scalar == "\n" {
                endLine()
                cell.append(scalar)
            } else {
                line.append(scalar)
            }
        }
        endLine()
        cell.append("\"")
        return String(cell)
    }

    /// What a spreadsheet takes as the start of a formula at the start of a line.
    private static let formulaStarts: Set<Unicode.Scalar> = ["=", "+", "-", "@", "\t"]
}
