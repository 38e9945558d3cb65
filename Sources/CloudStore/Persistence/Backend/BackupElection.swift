/// Which of the processes sharing a database takes the scheduled backups: one at a time, so
/// that a schedule yields one backup a period however many servers run it, and another once
/// that one is gone.
protocol BackupElection: Sendable {
    /// Whether this process takes the scheduled backup now: it holds the election, or took it
    /// now from a process that is gone. Never throws: a database out of reach answers `false`.
    func holdsScheduledBackups() -> Bool
}
