import Synchronization

extension CloudStore {
    // MARK: - Metrics

    /// What the store counted so far, read from memory: the environments opened by this
    /// process, the backend's own statistics and the store's counters. Nothing is queried.
    public func metrics() -> StoreMetrics {
        var metrics = StoreMetrics()
        var storage = backend.storageStatistics
        for environment in environments.read({ Array($0.values) }) {
            let writes = environment.writeStatistics
            metrics.writeGroups += writes.transactions
            metrics.writeGroupWrites += writes.jobs
            metrics.largestWriteGroup = max(metrics.largestWriteGroup, writes.largestGroup)
            metrics.writesWaiting += writes.waiting
            storage = storage.adding(environment.storageStatistics)
        }
        metrics.logPages = storage.log?.pages
        metrics.checkpoints = storage.log?.checkpoints
        metrics.poolConnections = storage.pool.map { ($0.connections, $0.inUse) }
        metrics.roundTrips = storage.pool?.roundTrips
        for limit in StoreLimit.allCases { metrics.refusals[limit] = counters.refusals(at: limit) }
        metrics.refusals[.signIn] = signInThrottle.refusals.load(ordering: .relaxed)
        metrics.notificationsQueued = counters.notificationsQueued.load(ordering: .relaxed)
        metrics.lastBackup = lastBackup.map { Int64($0.finished.timeIntervalSince1970 * 1000) }
        return metrics
    }
}
