/// A backend's own checks that its database can serve requests, beyond answering.
protocol StorageReadiness: Sendable {
    /// Why the database cannot serve now (its schema is not this program's), or `nil`. The
    /// reason names no host, path or password.
    func schemaProblem() -> String?
}
