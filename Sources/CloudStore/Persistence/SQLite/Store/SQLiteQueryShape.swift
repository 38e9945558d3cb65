/// Everything the text of a plain query's SQL depends on, and nothing it only binds: the type,
/// how many zones, which conditions there are, each filter's column and comparator (and how
/// many values an `IN` lists), each sort's column and direction. Two plans of one shape get the
/// same text, so a query's text is built once per shape and connection, and its prepared
/// statement is then found by the text's address (see ``SQLiteConnection/statement(_:)``).
///
/// The shape names columns by their slots, not fields by their names, so a schema change that
/// moves a field to another slot makes a new shape: a text is never used for another layout.
///
/// Only plain plans have a shape: no hierarchy condition, no continuation position, no sort by
/// distance, and filters of the scalar comparators (``SQLiteQuerySQLBuilder/isPlain(_:)``). Others
/// are built each time: their texts depend on more than a shape holds.
struct SQLiteQueryShape: Hashable {
    /// The type's id, the zone count, whether `createdBy` and `onlyKey` are set, then each
    /// filter's column, comparator and value count, then each sort's column and direction.
    private var codes: [Int64]

    init(codes: [Int64]) { self.codes = codes }
}

/// The query texts one connection has built, by shape.
struct SQLiteQueryTextCache {
    private var texts: [SQLiteQueryShape: String] = [:]
    /// Shapes come from clients; past this many the cache starts again rather than grow.
    static let limit = 64

    subscript(shape: SQLiteQueryShape) -> String? {
        get { texts[shape] }
        set {
            if texts.count >= Self.limit, texts[shape] == nil { texts.removeAll(keepingCapacity: true) }
            texts[shape] = newValue
        }
    }
}
