extension CloudStore {
    // MARK: - Limits

    /// The limits of a container's environment: the ones an operator set, else
    /// ``EnvironmentLimits/standard``. Read from memory; another process's change is seen
    /// within a second.
    public func limits(of container: ContainerIdentifier, _ environment: Environment) throws -> EnvironmentLimits {
        try limitsCache.limits(
            EnvironmentKey(container: container, environment: environment), now: now, counter: { try credentials.changeCounter() },
            load: { try lifecycleStorage.limits(of: container, environment) ?? .standard })
    }

    /// Sets the limits of a container's environment; they apply to the next request.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for limits that cannot work,
    ///   ``CloudStoreError/notFound(_:)`` for a container that does not exist.
    public func setLimits(
        _ limits: EnvironmentLimits, of container: ContainerIdentifier, _ environment: Environment, by actor: OperatorIdentity? = nil
    ) throws {
        try limits.validate()
        guard try catalog.container(container) != nil else { throw CloudStoreError.notFound("Container \(container) does not exist") }
        try auditedCatalogChange(
            actor, "limits.set", container: container.rawValue, environment: environment.rawValue, target: limits.auditSummary
        ) {
            try lifecycleStorage.setLimits(limits, of: container, environment)
        }
        limitsCache.invalidate()
        // A new rate starts from a full bucket rather than from the old rate's debt.
        requestThrottle.reset(EnvironmentKey(container: container, environment: environment))
    }

    /// How many processes serve from this store's database now, this one included: on
    /// PostgreSQL those whose heartbeat is recent (within three
    /// ``CloudStoreConfiguration/heartbeatInterval``s, as last counted), always 1 on SQLite or
    /// without a heartbeat. Each process admits this share of every request rate. Read from
    /// memory: it costs no query.
    public var liveProcessCount: Int { backend.heartbeat?.liveProcesses ?? 1 }

    /// Stops counting this process among those serving from the database: its heartbeat ends
    /// and its row goes, so that the others take its share at their next beat rather than once
    /// its beat is old. For a server shutting down; closing the store does it too.
    public func stopHeartbeat() { backend.heartbeat?.stop() }

    /// Lets one API request into a container's environment, or refuses it: past the request
    /// rate with THROTTLED and the seconds to wait; past the month's transfer with
    /// QUOTA_EXCEEDED. Called before the request does anything, so a refused one writes nothing.
    ///
    /// With several processes on one PostgreSQL database, each admits the rate and burst divided
    /// by ``liveProcessCount`` (a burst of at least one), from a bucket of its own: together
    /// they admit the environment's rate and burst, however a load balancer spreads requests.
    public func admitRequest(to container: ContainerIdentifier, _ environment: Environment) throws {
        let limits = try limits(of: container, environment)
        if let wait = requestThrottle.take(
            EnvironmentKey(container: container, environment: environment), ratePerSecond: limits.requestsPerSecond,
            burst: Double(limits.burst), sharedBy: liveProcessCount, now: now)
        {
            counters.refused(at: .requestRate)
            throw CloudStoreError.throttled(
                "Too many requests: \(container) (\(environment)) allows \(Self.rate(limits.requestsPerSecond)) a second; retry in \(wait) s",
                retryAfter: wait)
        }
        if let quota = limits.transferBytesPerMonth {
            let used = try requestLog.transferThisMonth(container, environment)
            guard used < quota else {
                counters.refused(at: .transfer)
                throw CloudStoreError.quotaExceeded(
                    "\(container) (\(environment)) has used its transfer for this month: \(used) of \(quota) bytes")
            }
        }
    }

    /// Refuses a write that leaves an environment over its storage limit, inside the write's
    /// transaction, so that throwing undoes it all. Writes that free space always pass. The
    /// storage is the records', the versions their history and trash keep, and the asset files'.
    func checkStorage(of writer: any EnvironmentWriter, limit: Int64?, container: ContainerIdentifier, environment: Environment) throws {
        guard let limit, writer.storedBytesChange > 0 else { return }
        let held = try writer.storedBytes()
        guard held <= limit else {
            throw CloudStoreError.quotaExceeded(
                "\(container) (\(environment)) may hold \(limit) bytes of records, their history and assets; "
                    + "this request would bring it to \(held)")
        }
    }

    private static func rate(_ perSecond: Double) -> String {
        perSecond == perSecond.rounded() ? String(Int64(perSecond)) : String(perSecond)
    }
}
