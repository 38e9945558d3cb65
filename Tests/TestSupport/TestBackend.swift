import Foundation

/// The storage backend the tests' stores use: SQLite files by default; PostgreSQL when
/// `CUMULUS_TEST_BACKEND=postgres`, as the test script runs the store and API suites a second time.
public enum TestBackend: String, Sendable {
    case sqlite
    case postgres

    /// The backend of this test run.
    public static let current = TestBackend(rawValue: ProcessInfo.processInfo.environment["CUMULUS_TEST_BACKEND"] ?? "") ?? .sqlite

    /// Whether this run is on SQLite: the condition of tests about SQLite's files themselves.
    public static var isSQLite: Bool { current == .sqlite }
}

extension TestBackend {
    /// What `read` returns once a change another process made is seen: at once on SQLite,
    /// which signals every change to every process; on PostgreSQL within the second a process
    /// trusts what it cached (read again for up to two, for a busy machine, until `seen` holds).
    public static func afterAnotherProcessChanged<T>(_ read: () throws -> T, seen: (T) -> Bool) throws -> T {
        guard current == .postgres else { return try read() }
        let deadline = Date().addingTimeInterval(2)
        while Date() < deadline {
            let value = try read()
            if seen(value) { return value }
            usleep(20_000)
        }
        return try read()
    }
}
