/// A value of a sort key, as continuation markers carry it.
enum SortKeyValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}
