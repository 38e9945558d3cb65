/// What a write transaction keeps in memory beside its rows, to outlive the transaction only if
/// it commits: told when it did. A transaction that rolls back, or that ends on a path that does
/// not tell, drops it unread, which is always safe.
protocol SQLiteTransactionMemory: AnyObject {
    /// The transaction committed: what it kept may now be trusted by later transactions.
    func committed()
}
