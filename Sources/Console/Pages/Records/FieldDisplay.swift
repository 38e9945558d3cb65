import CloudKitWire
import CloudStore
import Foundation

/// A record's field values as pages show them: text by type, references as links to their
/// record, locations as coordinates, bytes as a size with a download, times in the operator's
/// time zone, lists item by item.
struct FieldDisplay {
    /// Where the record is, for links to referenced records and downloads.
    let location: ConsoleLocation
    /// The record shown, for download links.
    let recordName: String
    /// The operator's time zone.
    let timeZone: TimeZone

    /// The longest text a table cell shows before cutting it short.
    static let cellLength = 80

    /// The template values of a Record Field Dictionary (`{value, type}`): `text`, and `url`
    /// when it links somewhere, `items` for a list, `type`.
    func render(_ name: String, _ field: JSONValue) -> [String: Any] {
        let typeName = field["type"]?.stringValue ?? ""
        let type = FieldType(wireName: typeName) ?? FieldType(wireName: typeName.replacingOccurrences(of: "LIST", with: "_LIST")) ?? .string
        let value = field["value"] ?? .null
        var context: [String: Any] = ["name": name, "type": typeName]
        if type.isList {
            let items = (value.arrayValue ?? []).enumerated().map { index, element in
                scalar(element, type.scalar, field: name, index: index)
            }
            context["items"] = items
            context["isList"] = true
            context["text"] = items.count == 1 ? "1 item" : "\(items.count) items"
            context["short"] = Self.cut(items.prefix(5).compactMap { $0["text"] as? String }.joined(separator: ", "))
        } else {
            context.merge(scalar(value, type.scalar, field: name, index: nil)) { _, new in new }
            context["short"] = Self.cut(context["text"] as? String ?? "")
        }
        return context
    }

    private func scalar(_ value: JSONValue, _ scalar: ScalarType, field: String, index: Int?) -> [String: Any] {
        // Every key the templates test is present, so a value without a link never inherits
        // one from the enclosing context (mustache looks names up the context stack).
        let defaults: [String: Any] = ["url": false, "download": false, "title": false, "numeric": false, "detail": "", "preview": false]
        return defaults.merging(scalarValues(value, scalar, field: field, index: index)) { _, new in new }
    }

    private func scalarValues(_ value: JSONValue, _ scalar: ScalarType, field: String, index: Int?) -> [String: Any] {
        switch scalar {
        case .string:
            return ["text": value.stringValue ?? ""]
        case .int64:
            return ["text": value.int64Value(acceptingNumericString: true).map { String($0) } ?? "", "numeric": true]
        case .double:
            return [
                "text": value.doubleValue(acceptingNumericString: true).map { JSONValue.double($0).description } ?? "", "numeric": true,
            ]
        case .timestamp:
            guard let milliseconds = value.int64Value(acceptingNumericString: true) else { return ["text": ""] }
            return ["text": Formatting.time(milliseconds, in: timeZone), "title": "\(milliseconds) ms since 1970"]
        case .reference:
            let name = value["recordName"]?.stringValue ?? ""
            var target = location
            if let zone = value["zoneID"]?["zoneName"]?.stringValue { target.zone = zone }
            return [
                "text": name, "url": target.path(.records, "/" + URLEncoding.component(name)),
                "detail": value["action"]?.stringValue.map { $0 == "DELETE_SELF" ? "deleted with its target" : "" } ?? "",
            ]
        case .location:
            let latitude = value["latitude"]?.doubleValue(acceptingNumericString: true) ?? 0
            let longitude = value["longitude"]?.doubleValue(acceptingNumericString: true) ?? 0
            var text = String(format: "%.6f, %.6f", latitude, longitude)
            if let accuracy = value["horizontalAccuracy"]?.doubleValue(acceptingNumericString: true) {
                text += String(format: " (±%.0f m)", accuracy)
            }
            return ["text": text]
        case .bytes:
            let size = value.stringValue.flatMap { Data(base64Encoded: $0) }?.count ?? 0
            var query: [(String, String?)] = []
            if let index { query.append(("index", String(index))) }
            let url = location.path(
                .records, "/" + URLEncoding.component(recordName) + "/fields/" + URLEncoding.component(field), query: query)
            return ["text": Formatting.bytes(Int64(size)), "url": url, "download": true]
        case .asset:
            let size = value["size"]?.int64Value(acceptingNumericString: true)
            var context: [String: Any] = ["text": size.map(Formatting.bytes) ?? "file"]
            if let url = value["downloadURL"]?.stringValue, url.hasPrefix("/") || url.hasPrefix("http://") || url.hasPrefix("https://") {
                // The file name stands in for CloudKit's `${f}`; the type rides in the URL's query.
                let type =
                    URLComponents(string: url.replacingOccurrences(of: "${f}", with: "f"))?.queryItems?
                    .first { $0.name == "type" }?.value ?? "application/octet-stream"
                context["url"] = url.replacingOccurrences(of: "${f}", with: URLEncoding.component(field))
                context["download"] = true
                context["detail"] = type
                if type.hasPrefix("image/") { context["preview"] = context["url"] }
            }
            return context
        }
    }

    /// `text` cut to ``cellLength`` characters.
    static func cut(_ text: String) -> String {
        text.count > cellLength ? String(text.prefix(cellLength - 1)) + "…" : text
    }
}
