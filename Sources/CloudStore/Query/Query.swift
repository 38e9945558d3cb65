/// A filter of a query: `comparator` applied to a field and a value. Filters are ANDed.
public struct QueryFilter: Hashable, Sendable {
    /// The field tested.
    public var field: QueryField
    /// How it is tested.
    public var comparator: Comparator
    /// The value tested against: a list for IN, NOT_IN and the `LIST_CONTAINS_ANY/ALL` family.
    public var value: FieldValue
    /// For NEAR: the radius in meters around `value`, a location.
    public var distance: Double?

    /// Creates a filter.
    public init(_ field: QueryField, _ comparator: Comparator, _ value: FieldValue, distance: Double? = nil) {
        self.field = field
        self.comparator = comparator
        self.value = value
        self.distance = distance
    }
}

/// A sort descriptor: a field, a direction, and for locations the point distances are measured from.
public struct QuerySort: Hashable, Sendable {
    /// The field sorted on.
    public var field: QueryField
    /// Ascending (the default) or descending.
    public var ascending: Bool
    /// For a location field: sort by distance from this point.
    public var relativeLocation: Location?

    /// Creates a sort descriptor.
    public init(_ field: QueryField, ascending: Bool = true, relativeLocation: Location? = nil) {
        self.field = field
        self.ascending = ascending
        self.relativeLocation = relativeLocation
    }
}

/// A query: the records of one type matching every filter, in sort order.
public struct Query: Hashable, Sendable {
    /// The record type queried.
    public var recordType: String
    /// Filters, all of which a record must pass.
    public var filters: [QueryFilter]
    /// Sort descriptors, most significant first.
    public var sorts: [QuerySort]

    /// Creates a query.
    public init(recordType: String, filters: [QueryFilter] = [], sorts: [QuerySort] = []) {
        self.recordType = recordType
        self.filters = filters
        self.sorts = sorts
    }
}

/// A `records/query` request: the query and where and how much to read.
public struct QueryRequest: Hashable, Sendable {
    /// The query.
    public var query: Query
    /// The zone to search; the default zone when `nil` and `zoneWide` is false.
    public var zoneName: String?
    /// Search every zone of the database (ignored when `zoneName` is given).
    public var zoneWide: Bool
    /// At most this many records per page (1…200; default 200).
    public var resultsLimit: Int?
    /// The marker of the previous page, to read the next one.
    public var continuationMarker: String?
    /// Fields to return; `nil` returns all.
    public var desiredKeys: [String]?

    /// The most records one page may hold.
    public static let maximumResults = 200

    /// Creates a request.
    public init(
        query: Query, zoneName: String? = nil, zoneWide: Bool = false, resultsLimit: Int? = nil,
        continuationMarker: String? = nil, desiredKeys: [String]? = nil
    ) {
        self.query = query
        self.zoneName = zoneName
        self.zoneWide = zoneWide
        self.resultsLimit = resultsLimit
        self.continuationMarker = continuationMarker
        self.desiredKeys = desiredKeys
    }
}

/// One page of query results.
public struct QueryResult: Hashable, Sendable {
    /// The matching records of this page, in order.
    public var records: [Record]
    /// Present when more records match: pass it back to read the next page.
    public var continuationMarker: String?

    /// Creates a page.
    public init(records: [Record], continuationMarker: String?) {
        self.records = records
        self.continuationMarker = continuationMarker
    }
}
