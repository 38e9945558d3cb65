extension TestBackend {
    /// Whether this is the default run (on SQLite), the one that also runs the suites about
    /// PostgreSQL itself: they start their own databases, so they run once, not again when the
    /// store and API suites are repeated on PostgreSQL.
    public static var isDefaultRun: Bool { current == .sqlite }
}
