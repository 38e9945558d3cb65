/// What processes sharing one database tell each other after their commits, so that each drops
/// what it cached and wakes what waits on it. What concerns only the backend's own caches (its
/// catalog's) it handles itself; the rest reaches the store as ``CrossProcessEvent``s.
protocol CrossProcessSignalling: Sendable {
    /// Starts telling and listening; `heard` runs on the listening thread.
    func start(heard: @escaping @Sendable (CrossProcessEvent) -> Void)
    /// Whether the listening connection is up, for readiness checks.
    var isListening: Bool { get }
    /// Queues, for the other processes, that these push tokens got notifications.
    func tell(tokens: [String])
    /// Stops telling and listening.
    func stop()
}

/// What another process said, as far as the store must act on it.
enum CrossProcessEvent: Sendable {
    /// The schema of the environment whose storage is called this (``StorageBackend/environmentStorageName(_:_:)``) changed.
    case schemaChanged(String)
    /// These push tokens got notifications.
    case notified(Set<String>)
    /// Messages may have been lost (or the database was restored under this process): every
    /// cache is suspect, every waiter should read again.
    case recheckAll
}
