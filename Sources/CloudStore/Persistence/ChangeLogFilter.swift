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
    /// Whether the read walks the log by record name (its `changes_by_name` index) rather than
    /// by position: with a name prefix, what finds few matches among many entries at once.
    var byName = false
    /// Whether the entries come in order; an existence check takes any one, at once.
    var ordered = true

    /// The least name greater than every name that starts with `namePrefix`: the prefix with
    /// its last character moved on by one (UTF-8 and both backends' byte order agree with the
    /// order of code points); `nil` without a prefix or for one of only the last code point.
    var nameUpperBound: String? {
        guard var scalars = namePrefix.map({ Array($0.unicodeScalars) }) else { return nil }
        while let last = scalars.popLast() {
            var next = last.value + 1
            if (0xD800...0xDFFF).contains(next) { next = 0xE000 }
            if let scalar = Unicode.Scalar(next) {
                scalars.append(scalar)
                return String(String.UnicodeScalarView(scalars))
            }
        }
        return nil
    }
}
