/// A validated query, ready for storage to run: every field resolved against the schema,
/// every value of the field's type, the index rules already checked.
struct QueryPlan: Hashable, Sendable {
    /// A filter with its field resolved.
    struct Filter: Hashable, Sendable {
        var field: PlannedField
        var comparator: Comparator
        /// The value, of the field's (element) type; a list for the IN and `LIST_*_ANY/ALL` families.
        var value: FieldValue
        /// For NEAR, meters.
        var distance: Double?
    }

    /// A sort key with its field resolved.
    struct Sort: Hashable, Sendable {
        var field: PlannedField
        var ascending: Bool
        var relativeLocation: Location?
    }

    /// Where the previous page stopped: its last row's sort values and storage key.
    struct Position: Hashable, Sendable {
        var sortValues: [SortKeyValue]
        var key: Int64
    }

    /// The record type queried.
    var recordType: String
    /// The zones searched (one, or all of a database's for zone-wide queries).
    var zones: [StoredZone]
    var filters: [Filter]
    var sorts: [Sort]
    /// The most rows to return.
    var limit: Int
    /// Resume after this position.
    var after: Position?
    /// Only records this user created: the caller reads by `GRANT READ TO "_creator"` alone.
    var createdBy: String?
    /// Only records of the hierarchies with these roots (of the plan's one zone): what shares
    /// give a caller who reaches the zone through them.
    var withinTrees: [String]?
    /// Only the record with this storage key: whether one record matches, as a subscription asks.
    var onlyKey: Int64?

    /// Ties between equal sort keys are broken by storage key, in the direction of the last
    /// sort (ascending when there is none), so that an index serves the whole order.
    var tieBreakAscending: Bool { sorts.last?.ascending ?? true }
}

/// A field as a query plan names it.
enum PlannedField: Hashable, Sendable {
    case system(SystemField)
    case user(FieldDefinition)

    var type: FieldType {
        switch self {
        case .system(let system): system.type
        case .user(let definition): definition.type
        }
    }
}
