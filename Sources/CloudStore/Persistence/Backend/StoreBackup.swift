/// Backups and restores of a whole store with its database's own tools.
protocol StoreBackup: Sendable {
    /// Writes a backup of the store to `path`, which exists (made private by the caller).
    func dump(to path: String) throws
    /// Whether a file beginning with `header` is a backup this tool made; when it is not, throws
    /// ``CloudStoreError/badRequest(_:)`` saying so of `path`.
    func checkFormat(of path: String, header: [UInt8]?) throws
    /// Replaces the store with the backup at `path`, all or nothing, working in the private
    /// `workDirectory`.
    func restore(from path: String, workDirectory: String) throws
}
