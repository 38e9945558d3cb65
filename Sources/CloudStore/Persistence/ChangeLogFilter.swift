/// Which entries of a zone's change log a read keeps, and in which order: the change-feed
/// inspector's pages (newest first, between positions, by record name, from a time on).
struct ChangeLogFilter: Hashable, Sendable {
    /// Only entries after this sequence.
    var after: Int64 = 0
    /// Only entries before this sequence.
    var before: Int64? = nil
    /// Only entries whose record name starts with this (an exact name is its own prefix).
    var namePrefix: String? = nil
    /// Only entries made at this time or later, in milliseconds since 1970.
    var since: Int64? = nil
    /// The newest entries kept, newest first, rather than the oldest, oldest first.
    var newestFirst = false
}
