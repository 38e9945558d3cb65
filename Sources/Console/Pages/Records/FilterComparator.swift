import CloudStore

/// CloudKit's filter comparators, named apart from Foundation's `Comparator`.
typealias FilterComparator = Comparator
