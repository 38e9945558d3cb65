import CloudStore

/// Reads a Query Dictionary into a ``Query``, reading filter values as their field's type.
public struct QueryDecoder {
    public let schema: Schema
    public let values = FieldValueDecoder()

    /// A decoder reading filter values as `schema` declares their fields.
    public init(schema: Schema) { self.schema = schema }

    public func query(_ wire: WireValue) throws(WireError) -> Query {
        try wire.requireObjectIfPresent()
        guard wire.isPresent else { throw WireError("\(wire.path) is required") }
        let recordType = try wire["recordType"].requiredString()
        let type = schema.recordType(recordType)
        var query = Query(recordType: recordType)
        for filter in try wire["filterBy"].array() ?? [] {
            query.filters.append(try self.filter(filter, type: type))
        }
        try appendSorts(wire["sortBy"], type: type, to: &query)
        return query
    }

    /// Reads a scanned Query Dictionary as ``query(_:)-(WireValue)`` reads it from a tree: the
    /// scan checked all but the filter values, read here as their field's type.
    public func query(_ scanned: ScannedQuery) throws(WireError) -> Query {
        let type = schema.recordType(scanned.recordType)
        var query = Query(recordType: scanned.recordType)
        query.filters.reserveCapacity(scanned.filters.count)
        for (index, filter) in scanned.filters.enumerated() {
            let value = try self.value(
                filter.value, hint: filter.hint, for: filter.field, filter.comparator, in: type,
                at: "query.filterBy[\(index)].fieldValue.value")
            query.filters.append(QueryFilter(filter.field, filter.comparator, value, distance: filter.distance))
        }
        if let sortBy = scanned.sortBy { try appendSorts(WireValue(sortBy, path: "query.sortBy"), type: type, to: &query) }
        return query
    }

    /// Appends the sorts of a `sortBy` array (absent or `null`: none).
    private func appendSorts(_ wire: WireValue, type: RecordTypeDefinition?, to query: inout Query) throws(WireError) {
        for sort in try wire.array() ?? [] {
            query.sorts.append(try self.sort(sort, type: type))
        }
    }

    private func field(_ wire: WireValue) throws(WireError) -> QueryField {
        if let system = try wire["systemFieldName"].string() {
            guard let field = QueryField(systemFieldName: system) else {
                throw WireError("\(wire["systemFieldName"].path) '\(system)' is not a system field name")
            }
            return field
        }
        guard let name = try wire["fieldName"].string(), !name.isEmpty else {
            throw WireError("\(wire.path) needs a fieldName or a systemFieldName")
        }
        return QueryField(fieldName: name)
    }

    private func declaredType(of field: QueryField, in type: RecordTypeDefinition?) -> FieldType? {
        switch field {
        case .system(let system): system == .recordID || system == .createdBy || system == .modifiedBy ? .reference : system.type
        case .field(let name): type?.field(name)?.type
        }
    }

    private func filter(_ wire: WireValue, type: RecordTypeDefinition?) throws(WireError) -> QueryFilter {
        try wire.requireObjectIfPresent()
        let name = try wire["comparator"].requiredString()
        guard let comparator = Comparator(wireName: name) else {
            throw WireError("\(wire["comparator"].path) '\(name)' is not a comparator")
        }
        let field = try self.field(wire)
        let fieldValue = wire["fieldValue"]
        try fieldValue.requireObjectIfPresent()
        let hint = try fieldValue["type"].string()
        guard let json = fieldValue["value"].json else { throw WireError("\(fieldValue.path).value is required") }
        let value = try self.value(json, hint: hint, for: field, comparator, in: type, at: fieldValue["value"].path)
        return QueryFilter(field, comparator, value, distance: try wire["distance"].double())
    }

    /// A filter's value, read as the type the comparator compares `field` with; `path` names it
    /// in the body, for an error.
    private func value(
        _ json: JSONValue, hint: String?, for field: QueryField, _ comparator: Comparator, in type: RecordTypeDefinition?,
        at path: @autoclosure () -> String
    ) throws(WireError) -> FieldValue {
        // The value of IN and the LIST_*_ANY/ALL family is a list of the field's (element) type;
        // LIST_CONTAINS and the BEGINS_WITH family compare one element.
        let declared = declaredType(of: field, in: type).map { declared in
            comparator.takesList ? FieldType.list(declared.scalar) : FieldType(declared.scalar)
        }
        // Never nil: the value is present.
        guard let value = try values.decode(json, hint: hint, declared: declared, at: path()) else {
            throw WireError("\(path()) is required")
        }
        return value
    }

    private func sort(_ wire: WireValue, type: RecordTypeDefinition?) throws(WireError) -> QuerySort {
        try wire.requireObjectIfPresent()
        let field = try self.field(wire)
        var relative: Location?
        let location = wire["relativeLocation"]
        if location.isPresent {
            // A Record Field Dictionary holding a location, or the location itself.
            let json = location["value"].json ?? location.json
            guard let json, let parsed = FieldValueDecoder.location(json) else {
                throw WireError("\(location.path) must hold a location with latitude and longitude")
            }
            relative = parsed
        }
        return QuerySort(field, ascending: try wire["ascending"].bool() ?? true, relativeLocation: relative)
    }
}
