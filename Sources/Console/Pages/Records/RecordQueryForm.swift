import CloudKitWire
import CloudStore
import Foundation

/// The records page's query as its form sends it (GET, so the address is the query):
/// `type`, filters `f0.field`/`f0.op`/`f0.value`/`f0.distance`, `f1…`, `sort` and `dir`, the
/// fields to `show`, `limit` and the `marker` of the page (or `after`, the record name a
/// browsed page starts after). Values are read as their field's type, so `3` filters an INT64
/// as a number and `2026-11-24` a TIMESTAMP as a time. Without filters or a sort the records are
/// browsed in record-name order straight from the store, which needs no index.
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
    /// The record name a browsed page starts after.
    var after: String?
    var page: Int

    /// The system fields a query may sort by, with the names the page shows for them.
    static let systemSorts = [(SystemField.createTime.rawValue, "created"), (SystemField.modTime.rawValue, "modified")]

    /// Reads the form from the request's query; `defaultType` when it names no type.
    init(_ request: ConsoleRequest, schema: SchemaView, defaultType: String? = nil) {
        recordType = request.query("type") ?? defaultType ?? schema.recordTypes.first?.name ?? ""
        let type = schema.recordType(recordType)
        filters = (0..<Self.maximumFilters).compactMap { index in
            guard let field = request.query("f\(index).field"), let op = request.query("f\(index).op"),
                let comparator = FilterComparator(wireName: op)
            else { return nil }
            return Filter(
                field: field, comparator: comparator, value: request.http.queryParameter("f\(index).value") ?? "",
                distance: request.query("f\(index).distance") ?? "")
        }
        sortField = request.query("sort").flatMap { $0.isEmpty ? nil : $0 }
        ascending = request.query("dir") != "desc"
        let shown = request.http.queryParameters("show").filter { name in type?.field(name) != nil }
        shownFields = shown.isEmpty ? (type?.userFields.prefix(Self.defaultShownFields).map(\.name) ?? []) : shown
        limit = min(max(Int(request.query("limit") ?? "") ?? Self.defaultLimit, 1), QueryRequest.maximumResults)
        marker = request.query("marker")
        after = request.query("after")
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

    /// Whether the page browses the type's records in record-name order instead of querying:
    /// no filter and no sort, so no index is needed.
    var browses: Bool { filters.isEmpty && sortField == nil }

    /// The query pairs that reproduce this form with its page, for a link back to it.
    var pagePairs: [(String, String?)] {
        var pairs = queryPairs
        if let marker { pairs.append(("marker", marker)) }
        if let after { pairs.append(("after", after)) }
        if page > 1 { pairs.append(("page", String(page))) }
        return pairs
    }

    /// The query pairs of this form sorted by `field` (`nil`: by record name), for a column's header.
    func sortPairs(_ field: String?, ascending: Bool) -> [(String, String?)] {
        var form = self
        form.sortField = field
        form.ascending = ascending
        return form.queryPairs
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
    /// - Parameter counts: records of each type in the zone, shown beside the type names.
    func context(schema: SchemaView, counts: [String: Int64] = [:]) -> [String: Any] {
        let type = schema.recordType(recordType)
        let fields = type?.fields ?? []
        func fieldOptions(selected: String?) -> [[String: Any]] {
            [["name": "", "label": "—", "selected": selected == nil, "ops": ""]]
                + fields.map { field in
                    [
                        "name": field.name, "label": "\(field.name) (\(field.type.wireName))", "selected": field.name == selected,
                        // The comparators this field takes, for the script that narrows the list once a field is picked.
                        "ops": FilterComparator.allCases.filter { $0.applies(to: field.type) }.map(\.rawValue).joined(separator: " "),
                    ]
                }
        }
        let hasLocation = fields.contains { $0.type == .location }
        var rows = filters.enumerated().map { index, filter in
            filterRow(
                index: index, field: type?.field(filter.field), comparator: filter.comparator, value: filter.value,
                distance: filter.distance, fieldOptions: fieldOptions(selected: filter.field), hasLocation: hasLocation)
        }
        rows.append(
            filterRow(
                index: filters.count, field: nil, comparator: .equals, value: "", distance: "", fieldOptions: fieldOptions(selected: nil),
                hasLocation: hasLocation))
        // Sorting: by record name (browsing, no index), by when records were made or changed, or
        // by a field a sort can use.
        var sortOptions: [[String: Any]] = [["name": "", "label": "record name", "selected": sortField == nil]]
        sortOptions += Self.systemSorts.map { ["name": $0.0, "label": $0.1, "selected": sortField == $0.0] }
        sortOptions += (type?.userFields ?? []).filter { Self.sorts(by: $0.type) }.map { field in
            ["name": field.name, "label": field.name, "selected": sortField == field.name]
        }
        return [
            "recordTypes": schema.recordTypes.map { type in
                let count = counts[type.name] ?? 0
                return ["name": type.name, "label": "\(type.name) (\(count))", "selected": type.name == recordType]
            },
            "recordType": recordType,
            "filters": rows,
            "sortOptions": sortOptions,
            "descending": !ascending,
            "shownFieldOptions": (type?.userFields ?? []).map { ["name": $0.name, "checked": shownFields.contains($0.name)] },
            "limit": String(limit),
        ]
    }

    /// Whether a query can sort by a field of `type`: a scalar other than bytes, assets and
    /// references.
    static func sorts(by type: FieldType) -> Bool {
        !type.isList && ![.bytes, .asset, .reference].contains(type.scalar)
    }

    /// One filter row: a row with a field offers the comparators its type takes, and the meters
    /// box only for a location; the empty row offers every comparator (its script narrows them
    /// once a field is chosen) and the meters box when the type has a location.
    private func filterRow(
        index: Int, field: SchemaView.Field?, comparator: FilterComparator, value: String, distance: String,
        fieldOptions: [[String: Any]], hasLocation: Bool
    ) -> [String: Any] {
        let offered = field.map { field in FilterComparator.allCases.filter { $0.applies(to: field.type) || $0 == comparator } }
        return [
            "index": String(index), "number": String(index + 1), "fieldOptions": fieldOptions,
            "comparators": (offered ?? FilterComparator.allCases).map {
                ["name": $0.rawValue, "selected": $0 == comparator && field != nil]
            },
            "value": value, "distance": distance,
            "takesDistance": field.map { $0.type == .location } ?? hasLocation,
        ]
    }
}
