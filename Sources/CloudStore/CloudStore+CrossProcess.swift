extension CloudStore {
    // MARK: - Processes sharing a PostgreSQL database

    /// Starts telling other processes of this one's commits and hearing theirs.
    func startCrossProcess(url: String, pool: PostgresPool) {
        let cross = PostgresCrossProcess(url: url, pool: pool) { [weak self] event in self?.heard(event) }
        crossProcess.withLock { $0 = cross }
        (catalog as? PostgresCatalogStore)?.afterWrite.withLock { afterWrite in
            afterWrite = { [weak self] in self?.tellOtherProcesses(PostgresCrossProcess.Item.catalog) }
        }
    }

    /// Whether this process hears the others, when it shares a PostgreSQL database; `true` on SQLite.
    public var hearsOtherProcesses: Bool {
        guard postgres != nil else { return true }
        return crossProcess.withLock { $0?.isListening ?? false }
    }

    /// Queues items for the other processes; nothing on SQLite, where every process sees the files.
    func tellOtherProcesses<S: Sequence<String>>(_ items: S) {
        crossProcess.withLock { $0 }?.notifier.changed(items)
    }

    func tellOtherProcesses(_ item: String) { tellOtherProcesses([item]) }

    /// What another process said changed: cached rows to drop, waiters to wake.
    private func heard(_ event: PostgresListener.Event) {
        let catalog = catalog as? PostgresCatalogStore
        switch event {
        case .changed(let items):
            var tokens = Set<String>()
            for item in items {
                if item == PostgresCrossProcess.Item.catalog {
                    catalog?.invalidateCachedCounter()
                } else if item.hasPrefix("s:") {
                    forgetSchema(named: String(item.dropFirst(2)))
                } else if item.hasPrefix("t:") {
                    tokens.insert(String(item.dropFirst(2)))
                }
            }
            if !tokens.isEmpty { wakeNotificationListeners(tokens) }
        case .recheckAll:
            // A restore into this database, or a failover under it, while this process runs:
            // noticed here too, not only when the next process starts.
            _ = try? catalog?.checkClusterIdentity()
            catalog?.invalidateCachedCounter()
            forgetSchema(named: nil)
            for listener in recheckListeners.withLock({ $0 }) { listener() }
        }
    }
}
