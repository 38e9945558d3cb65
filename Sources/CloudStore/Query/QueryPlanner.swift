/// Checks a query against the schema and CloudKit's index rules and turns it into a
/// ``QueryPlan``: a filter needs QUERYABLE, a token search SEARCHABLE, a sort SORTABLE, and a
/// query without filters needs `___recordID` QUERYABLE. Errors carry CloudKit's messages.
struct QueryPlanner {
    let schema: Schema

    /// The most filters a query may have. CloudKit documents none; this keeps every query one
    /// statement storage can run (SQLite nests each AND one level deeper).
    static let maximumFilters = 100
    /// The most sort descriptors a query may have.
    static let maximumSorts = 10
    /// The most values an IN, NOT_IN or `LIST_*_ANY/ALL` filter may list.
    static let maximumListValues = 1_000
    /// The most words a token search may look for.
    static let maximumSearchTokens = 64

    /// Plans `query` over `zones`, at most `limit` rows.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for an unknown type or field, a missing
    ///   index, a value of the wrong type, or a query past the limits above.
    func plan(_ query: Query, zones: [StoredZone], limit: Int) throws -> QueryPlan {
        guard query.filters.count <= Self.maximumFilters else {
            throw CloudStoreError.badRequest(
                "A query may have at most \(Self.maximumFilters) filters; this one has \(query.filters.count)")
        }
        guard query.sorts.count <= Self.maximumSorts else {
            throw CloudStoreError.badRequest(
                "A query may have at most \(Self.maximumSorts) sort descriptors; this one has \(query.sorts.count)")
        }
        for filter in query.filters {
            let count = filter.value.elements.count
            guard count <= Self.maximumListValues else {
                throw CloudStoreError.badRequest(
                    "A filter may list at most \(Self.maximumListValues) values; \(filter.comparator.rawValue) on \(filter.field) lists \(count)"
                )
            }
        }
        guard let type = schema.recordType(query.recordType) else {
            throw CloudStoreError.badRequest("Did not find record type: \(query.recordType)")
        }
        if query.filters.isEmpty, !type.field(.recordID).has(.queryable) {
            throw CloudStoreError.missingIndex(MissingIndex(recordType: type.name, field: SystemField.recordID.rawValue, index: .queryable))
        }
        let filters = try query.filters.map { try plan($0, in: type) }
        let sorts = try query.sorts.map { try plan($0, in: type) }
        return QueryPlan(recordType: type.name, zones: zones, filters: filters, sorts: sorts, limit: limit, after: nil)
    }

    private func resolve(_ field: QueryField, in type: RecordTypeDefinition) throws -> (PlannedField, FieldDefinition) {
        switch field {
        case .system(let system):
            return (.system(system), type.field(system))
        case .field(let name):
            guard let definition = type.field(name), !definition.isSystem else {
                throw CloudStoreError.badRequest("Unknown field '\(name)' on record type '\(type.name)'")
            }
            return (.user(definition), definition)
        }
    }

    private func plan(_ filter: QueryFilter, in type: RecordTypeDefinition) throws -> QueryPlan.Filter {
        let (field, definition) = try resolve(filter.field, in: type)
        let comparator = filter.comparator
        guard comparator.applies(to: definition.type) else {
            throw CloudStoreError.badRequest(
                "\(comparator.rawValue) cannot be applied to field '\(definition.name)' of type \(definition.type)")
        }
        let required: IndexKind = comparator.isTokenSearch ? .searchable : .queryable
        guard definition.has(required) else {
            throw CloudStoreError.missingIndex(MissingIndex(recordType: type.name, field: definition.name, index: required))
        }

        let scalar = definition.type.scalar
        let value: FieldValue
        if comparator.takesList {
            value = .list(scalar, try filter.value.elements.map { try coerce($0, to: scalar, definition) })
        } else {
            if case .list = filter.value {
                throw CloudStoreError.badRequest("\(comparator.rawValue) on field '\(definition.name)' takes a single value, not a list")
            }
            value = try coerce(filter.value, to: scalar, definition)
        }

        var distance: Double?
        if comparator == .near {
            guard let given = filter.distance, given.isFinite, given >= 0 else {
                throw CloudStoreError.badRequest("NEAR on field '\(definition.name)' needs a distance in meters")
            }
            guard case .location(let center) = value, center.isValid else {
                throw CloudStoreError.badRequest("NEAR on field '\(definition.name)' needs a valid location")
            }
            distance = given
        }
        if comparator.isTokenSearch, case .string(let text) = value {
            let count = TextTokens.tokens(of: text).count
            guard count > 0 else {
                throw CloudStoreError.badRequest(
                    "\(comparator.rawValue) on field '\(definition.name)' needs at least one word to search for")
            }
            guard count <= Self.maximumSearchTokens else {
                throw CloudStoreError.badRequest(
                    "\(comparator.rawValue) on field '\(definition.name)' may look for at most \(Self.maximumSearchTokens) words, not \(count)"
                )
            }
        }
        return QueryPlan.Filter(field: field, comparator: comparator, value: value, distance: distance)
    }

    /// A value of a NUMBER field with no preference keeps its own numeric type; others take the field's.
    private func coerce(_ value: FieldValue, to scalar: ScalarType, _ definition: FieldDefinition) throws -> FieldValue {
        if definition.numberPreference == .unspecified, case .int64 = value { return value }
        if definition.numberPreference == .unspecified, case .double = value { return value }
        return try FilterValueCoercion.scalar(value, to: scalar, field: definition.name)
    }

    private func plan(_ sort: QuerySort, in type: RecordTypeDefinition) throws -> QueryPlan.Sort {
        let (field, definition) = try resolve(sort.field, in: type)
        guard definition.has(.sortable) else {
            throw CloudStoreError.missingIndex(MissingIndex(recordType: type.name, field: definition.name, index: .sortable))
        }
        guard !definition.type.isList else {
            throw CloudStoreError.badRequest("Field '\(definition.name)' is a list; records cannot be sorted by a list")
        }
        if definition.type == .location {
            guard let center = sort.relativeLocation, center.isValid else {
                throw CloudStoreError.badRequest("Sorting by location field '\(definition.name)' needs a relativeLocation")
            }
        } else if sort.relativeLocation != nil {
            throw CloudStoreError.badRequest("relativeLocation applies to location fields only, not to '\(definition.name)'")
        }
        return QueryPlan.Sort(field: field, ascending: sort.ascending, relativeLocation: sort.relativeLocation)
    }
}
