/// A row of a query's result: the record and the values of its sort keys, from which the next
/// page's position is built.
struct QueryRow: Hashable, Sendable {
    var stored: StoredRecord
    var sortValues: [SortKeyValue]
}
