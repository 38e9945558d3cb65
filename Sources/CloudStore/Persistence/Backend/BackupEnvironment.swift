/// A container environment as a backup file holds it, opened to read what it held: a restore
/// of one zone or record type from the backup compares it with the live environment.
struct BackupEnvironment: Sendable {
    /// The environment's storage as the backup holds it; read it, never write it.
    let storage: any EnvironmentStorage
    /// The stored bytes (as the asset store keeps them) of those of the blobs named by their
    /// SHA-256 that the backup holds; none where its backups do not hold blobs (PostgreSQL's
    /// leave them where they are kept).
    var blobs: @Sendable (Set<String>) throws -> [String: [UInt8]] = { _ in [:] }
    /// Removes what opening it made in the database (the schema it was restored into), if
    /// anything; files go with the work directory.
    let close: @Sendable () -> Void
}
