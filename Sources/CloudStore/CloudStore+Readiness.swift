extension CloudStore {
    // MARK: - Readiness

    /// Why the store cannot serve requests now, or `nil` when it can: its database answers, has
    /// the schema this program expects and, on PostgreSQL, this process hears the others. The
    /// reason names no host, path or password.
    public func readinessProblem() -> String? {
        do {
            _ = try catalog.containers()
        } catch {
            return "the database does not answer"
        }
        if let problem = backend.readiness?.schemaProblem() { return problem }
        return hearsOtherProcesses ? nil : "not yet listening for the other processes' changes"
    }
}
