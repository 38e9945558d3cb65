/// How an environment's writer has grouped its jobs into transactions so far.
struct WriteStatistics: Sendable, Equatable {
    /// Transactions the writer committed or rolled back.
    var transactions = 0
    /// Jobs those transactions ran.
    var jobs = 0
    /// The most jobs one transaction ran.
    var largestGroup = 0
    /// Groups run first without savepoints, in which a job failed: their transaction was
    /// rolled back and they ran again, a savepoint per job.
    var groupsRunTwice = 0
    /// Jobs submitted and not yet taken into a transaction.
    var waiting = 0
}
