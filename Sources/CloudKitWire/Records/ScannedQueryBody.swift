import CloudStore

/// A `records/query` body read straight from its bytes, without a JSON tree, when it has the
/// shape clients send: a record type and filters on named or system fields, each with a
/// `fieldValue` of `value` and maybe `type`.
///
/// As with ``ScannedModifyBody``, scanning accepts only bodies that the tree reader reads to the
/// same query without error, up to the filter values, which are read as their field's type by
/// the same decoder either way. For anything else it gives `nil`, and the body is parsed as a tree.
public struct ScannedQueryBody: Sendable {
    /// The body's members other than `query`, in order, each as the JSON parser reads it.
    public let envelope: JSONValue
    /// The Query Dictionary.
    public let query: ScannedQuery

    /// The body of `bytes`, or `nil` when it is not of the shape scanning reads.
    public static func scan(_ bytes: [UInt8]) -> ScannedQueryBody? {
        JSONParser.scanBody(bytes, around: "query") { parser, depthLimit throws(JSONParseError) in
            try parser.readQuery(depthLimit: depthLimit)
        }
        .map { ScannedQueryBody(envelope: $0.envelope, query: $0.member) }
    }
}

/// A Query Dictionary as scanned: its record type and filters, and its `sortBy` as it came.
public struct ScannedQuery: Sendable {
    /// The `recordType`.
    public let recordType: String
    /// The `filterBy` entries, in order.
    public let filters: [ScannedFilter]
    /// The `sortBy` value, `nil` when absent or `null`; read as the tree reads it.
    public let sortBy: JSONValue?
}

/// One Filter Dictionary whose field, comparator and distance are known good; its value is
/// still to be read as its field's type.
public struct ScannedFilter: Sendable {
    /// The field compared.
    public let field: QueryField
    /// How it is compared.
    public let comparator: Comparator
    /// `fieldValue.value`, never `null`.
    public let value: JSONValue
    /// `fieldValue.type`, `nil` when absent or `null`.
    public let hint: String?
    /// `distance`, `nil` when absent or `null`.
    public let distance: Double?
}

extension JSONParser {
    /// The Query Dictionary; its members sit inside the body and itself.
    fileprivate mutating func readQuery(depthLimit: Int) throws(JSONParseError) -> ScannedQuery {
        var recordType: String?
        var filters: [ScannedFilter] = []
        var sortBy: JSONValue?
        var seen = (filterBy: false, sortBy: false)
        try readObject { parser, key throws(JSONParseError) in
            switch key {
            case "recordType":
                guard recordType == nil, case .string(let name) = try parser.readPlainValue(inside: 2, depthLimit: depthLimit) else {
                    throw parser.notScanned()
                }
                recordType = name
            case "filterBy":
                try parser.once(&seen.filterBy)
                if try parser.readNull(inside: 2, depthLimit: depthLimit) { return }
                try parser.readArray { parser throws(JSONParseError) in
                    filters.append(try parser.readFilter(depthLimit: depthLimit))
                }
            case "sortBy":
                try parser.once(&seen.sortBy)
                sortBy = try parser.readPlainValue(inside: 2, depthLimit: depthLimit).nonNull
            default:
                _ = try parser.readPlainValue(inside: 2, depthLimit: depthLimit)
            }
        }
        guard let recordType else { throw notScanned() }
        return ScannedQuery(recordType: recordType, filters: filters, sortBy: sortBy)
    }

    /// One Filter Dictionary; its members sit inside the body, the query, `filterBy` and itself.
    private mutating func readFilter(depthLimit: Int) throws(JSONParseError) -> ScannedFilter {
        var comparator: Comparator?
        var fieldName: String?
        var systemFieldName: String?
        var fieldValue: (value: JSONValue, hint: String?)?
        var distance: Double?
        var seen = (fieldName: false, systemFieldName: false, distance: false)
        try readObject { parser, key throws(JSONParseError) in
            switch key {
            case "comparator":
                guard comparator == nil, case .string(let name) = try parser.readPlainValue(inside: 4, depthLimit: depthLimit),
                    let named = Comparator(wireName: name)
                else { throw parser.notScanned() }
                comparator = named
            case "fieldName":
                try parser.once(&seen.fieldName)
                fieldName = try parser.readOptionalString(inside: 4, depthLimit: depthLimit)
            case "systemFieldName":
                try parser.once(&seen.systemFieldName)
                systemFieldName = try parser.readOptionalString(inside: 4, depthLimit: depthLimit)
            case "fieldValue":
                guard fieldValue == nil else { throw parser.notScanned() }
                fieldValue = try parser.readFilterValue(depthLimit: depthLimit)
            case "distance":
                try parser.once(&seen.distance)
                let value = try parser.readPlainValue(inside: 4, depthLimit: depthLimit)
                guard !value.isNull else { return }
                // As the tree reads it: a number, or a string holding one.
                guard let number = value.doubleValue(acceptingNumericString: true) else { throw parser.notScanned() }
                distance = number
            default:
                _ = try parser.readPlainValue(inside: 4, depthLimit: depthLimit)
            }
        }
        // The field as the tree names it: a system field name when given, else a field name.
        let field: QueryField
        if let systemFieldName {
            guard let system = QueryField(systemFieldName: systemFieldName) else { throw notScanned() }
            field = system
        } else {
            guard let fieldName, !fieldName.isEmpty else { throw notScanned() }
            field = QueryField(fieldName: fieldName)
        }
        guard let comparator, let fieldValue else { throw notScanned() }
        return ScannedFilter(field: field, comparator: comparator, value: fieldValue.value, hint: fieldValue.hint, distance: distance)
    }

    /// A filter's `fieldValue`: an object with a `value` (not `null`) and maybe a `type`; its
    /// members sit five containers deep.
    private mutating func readFilterValue(depthLimit: Int) throws(JSONParseError) -> (value: JSONValue, hint: String?) {
        let (value, hint) = try readFieldDictionary(inside: 5, depthLimit: depthLimit)
        guard let value else { throw notScanned() }
        return (value, hint)
    }
}
