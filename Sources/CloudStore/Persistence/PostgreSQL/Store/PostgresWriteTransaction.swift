/// What a store keeps for the jobs of one write transaction, and writes as its last statements.
protocol PostgresWriteGroupState: AnyObject {
    /// Statements to run after every job and before the change log's, in the same round trip.
    func finalStatements() -> [(sql: String, values: [PostgresValue])]
    /// Called before each job of a group, so that a failed job's share can be taken back.
    func beginJob()
    /// Takes back what the failed job added since ``beginJob()``.
    func undoJob()
}

/// One write transaction of an environment on PostgreSQL, as the jobs of a group share it: the
/// connection, and the change-log entries waiting for their sequences until the commit.
final class PostgresWriteTransaction {
    /// The connection the transaction runs on.
    let connection: PostgresConnection
    /// The environment's change logs.
    let changeLog: PostgresChangeLog
    /// What the jobs appended so far.
    var pending = PostgresChangeLog.Pending()
    /// What the store keeps for the whole group (its session), made as the transaction begins.
    var groupState: (any PostgresWriteGroupState)?
    /// Whether the running job may wait for a row another transaction holds. Only a group's
    /// first job does (or one that may not run twice): a later job waiting while its group
    /// holds the earlier jobs' rows could close a cycle with another process's group, so it
    /// fails at once (`55P03`) and goes first in the next group instead.
    var waitsForLocks = true

    /// The clause that locks the rows a statement selects, as the running job may: waiting, or
    /// failing at once with `55P03`.
    var lockingClause: String { waitsForLocks ? " FOR UPDATE" : " FOR UPDATE NOWAIT" }

    init(connection: PostgresConnection, changeLog: PostgresChangeLog) {
        self.connection = connection
        self.changeLog = changeLog
    }

    /// Appends a change to `zone`'s log; it gets its sequence when the transaction commits.
    func appendChange(_ entry: PostgresChangeLog.Entry, zone: Int64) throws {
        try changeLog.append(entry, zone: zone, to: &pending, on: connection)
    }

    /// Notes that a zone was created, changed or deleted, for its database's zone log.
    func touchZoneLog(_ key: PostgresChangeLog.ZoneLogKey, deleted: Bool, time: Int64) {
        pending.touch(key, deleted: deleted, time: time)
    }

    /// Runs `body` so that, if it throws, only what it did is undone: its rows (a savepoint)
    /// and its pending entries.
    func savepoint<T>(_ body: () throws -> T) throws -> T {
        let before = pending
        do {
            return try connection.savepoint(body)
        } catch {
            pending = before
            throw error
        }
    }
}
