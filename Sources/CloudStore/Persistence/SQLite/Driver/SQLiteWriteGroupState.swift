/// What the jobs of one write group keep between them on the writer connection, so that work
/// a job would do at its end (writing counts, moving zones in the database's log) is done once
/// for the group, before it commits. Made by the first job of a group that needs it; each job
/// that fails is taken back out of it.
protocol SQLiteWriteGroupState: AnyObject {
    /// Remembers the state before a job, to return to if the job is undone.
    func beginJob()
    /// Returns to the state before the job: its savepoint was rolled back.
    func undoJob()
    /// Writes what the group's jobs left to write, inside the transaction, before it commits.
    func finish() throws
}
