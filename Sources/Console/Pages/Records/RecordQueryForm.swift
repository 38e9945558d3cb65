import CloudKitWire
import CloudStore
import Foundation

/// The records page's query as its form sends it (GET, so the address is the query):
/// `type`, filters `f0.field`/`f0.op`/`f0.value`/`f0.distance`, `f1…`, `sort` and `dir`, the
/// fields to `show`, `limit` and the `marker` of the page. Values are read as their field's
/// type, so `3` filters an INT64 as a number and `2026-11-24` a TIMESTAMP as a time.
struct RecordQueryForm {
    /// One filter row.
    struct Filter {
        var field: String
        var comparator: FilterComparator
        var value: String
        var distance: String
    }

    /// The most filter rows the form reads.
    static let maximumFilters = 20
    /// Records per page unless asked otherwise.
    static let defaultLimit = 50
    /// How many user fields are shown unless chosen.
    static let defaultShownFields = 4

    /// The comparators whose value is a list (comma-separated in the form).
    static let listComparators: Set<FilterComparator> = [
        .in, .notIn, .listContainsAny, .notListContainsAny, .listContainsAll, .notListContainsAll,
    ]

    var recordType: String
    var filters: [Filter]
    var sortField: String?
    var ascending: Bool
    var shownFields: [String]
    var limit: Int
    var marker: String?
    var page: Int

    /// Reads the form from the request's query.
    init(_ request: ConsoleRequest, schema: SchemaView) {
        recordType = request.query("type") ?? schema.recordTypes.first?.name ?? ""
        let type = schema.recordType(recordType)
        filters = (0..<Self.maximumFilters).compactMap { index in
            guard let field = request.query("f\(index).field"), let op = request.query("f\(index).op"),
                let comparator = FilterComparator(wireName: op)
            else { return nil }
            return Filter(
                field: field, comparator: comparator, value: request.http.queryParameter("f\(index).value") ?? "",
                distance: request.query("f\(index).distance") ?? "")
        }
        sortField = request.query("sort")
        ascending = request.query("dir") != "desc"
        let shown = request.http.queryParameters("show").filter { name in type?.field(name) != nil }
        shownFields = shown.isEmpty ? (type?.userFields.prefix(Self.defaultShownFields).map(\.name) ?? []) : shown
        limit = min(max(Int(request.query("limit") ?? "") ?? Self.defaultLimit, 1), QueryRequest.maximumResults)
        marker = request.query("marker")
        page = max(Int(request.query("page") ?? "") ?? 1, 1)
    }

    /// The `records/query` body for this form.
    /// - Throws: ``ConsoleError/badRequest(_:)`` naming the filter whose value does not fit its field.
    func body(schema: SchemaView, location: ConsoleLocation, timeZone: TimeZone, paged: Bool = true) throws(ConsoleError) -> JSONValue {
        let type = schema.recordType(recordType)
        var filterBy: [JSONValue] = []
        for filter in filters {
            let fieldType = type?.field(filter.field)?.type ?? .string
            let takesList = Self.listComparators.contains(filter.comparator)
            let valueType = takesList ? FieldType.list(fieldType.scalar) : FieldType(fieldType.scalar)
            var object: JSONObject = [
                "fieldName": .string(filter.field), "comparator": .string(filter.comparator.rawValue),
                "fieldValue": [
                    "value": try FieldInput.value(filter.value, valueType, field: filter.field, timeZone: timeZone, commaSeparated: true)
                ],
            ]
            if filter.comparator == .near {
                guard let meters = Double(filter.distance.trimmingCharacters(in: .whitespaces)), meters >= 0 else {
                    throw .badRequest("\(filter.field): NEAR needs a distance in meters.")
                }
                object["distance"] = .double(meters)
            }
            filterBy.append(.object(object))
        }
        var query: JSONObject = ["recordType": .string(recordType), "filterBy": .array(filterBy)]
        if let sortField {
            query["sortBy"] = [["fieldName": .string(sortField), "ascending": .bool(ascending)]]
        }
        var body: JSONObject = ["query": .object(query), "zoneID": location.zoneID]
        if paged {
            body["resultsLimit"] = .integer(Int64(limit))
            if let marker { body["continuationMarker"] = .string(marker) }
        }
        return .object(body)
    }

    /// The query pairs that reproduce this form, without paging, for links (export, next page).
    var queryPairs: [(String, String?)] {
        var pairs: [(String, String?)] = [("type", recordType)]
        for (index, filter) in filters.enumerated() {
            pairs += [
                ("f\(index).field", filter.field), ("f\(index).op", filter.comparator.rawValue),
                ("f\(index).value", filter.value), ("f\(index).distance", filter.distance),
            ]
        }
        if let sortField { pairs += [("sort", sortField), ("dir", ascending ? "asc" : "desc")] }
        pairs += shownFields.map { ("show", $0) }
        if limit != Self.defaultLimit { pairs.append(("limit", String(limit))) }
        return pairs
    }

    /// The template values of the form: record types, filter rows (the ones set and one empty),
    /// sort choices, field checkboxes.
    func context(schema: SchemaView) -> [String: Any] {
        let type = schema.recordType(recordType)
        let fields = type?.fields ?? []
        func fieldOptions(selected: String?, includeEmpty: Bool) -> [[String: Any]] {
            var options: [[String: Any]] = includeEmpty ? [["name": "", "label": "—", "selected": selected == nil]] : []
            options += fields.map { field in
                ["name": field.name, "label": "\(field.name) (\(field.type.wireName))", "selected": field.name == selected]
            }
            return options
        }
        var rows = filters.enumerated().map { index, filter in
            filterRow(
                index: index, field: filter.field, comparator: filter.comparator, value: filter.value, distance: filter.distance,
                fieldOptions: fieldOptions(selected: filter.field, includeEmpty: true))
        }
        rows.append(
            filterRow(
                index: filters.count, field: nil, comparator: .equals, value: "", distance: "",
                fieldOptions: fieldOptions(selected: nil, includeEmpty: true)))
        return [
            "recordTypes": schema.recordTypes.map { ["name": $0.name, "selected": $0.name == recordType] },
            "recordType": recordType,
            "filters": rows,
            "sortOptions": fieldOptions(selected: sortField, includeEmpty: true),
            "descending": !ascending,
            "shownFieldOptions": (type?.userFields ?? []).map { ["name": $0.name, "checked": shownFields.contains($0.name)] },
            "limit": String(limit),
        ]
    }

    private func filterRow(
        index: Int, field: String?, comparator: FilterComparator, value: String, distance: String,
        fieldOptions: [[String: Any]]
    ) -> [String: Any] {
        [
            "index": String(index), "number": String(index + 1), "fieldOptions": fieldOptions,
            "comparators": FilterComparator.allCases.map { ["name": $0.rawValue, "selected": $0 == comparator && field != nil] },
            "value": value, "distance": distance,
        ]
    }
}
