extension CloudStore {
    // MARK: - Usage over time

    /// A container environment's usage against its limits, and over `range` in equal buckets
    /// ending with the current one.
    public func usageReport(of container: ContainerIdentifier, _ environment: Environment, range: UsageRange) throws -> UsageReport {
        let now = self.now
        let span = UsageSpan(range, now: now)
        let read = try requestLog.usageMinutes(container, environment, fromMinute: span.firstStart, toMinute: span.end)
        return try usageReport(of: container, environment, range: range, minutes: read.minutes, storageBefore: read.storageBefore, now: now)
    }

    /// An environment's calls over `range` in figures, with the breakdown by operation (see
    /// ``UsageSummary``); the range ends with the current bucket, as ``usageReport(of:_:range:)``'s.
    public func usageSummary(of container: ContainerIdentifier, _ environment: Environment, range: UsageRange) throws -> UsageSummary {
        let now = self.now
        let minutes = try requestLog.usageMinutes(
            container, environment, fromMinute: UsageSpan.earliestMinute(now: now), toMinute: UsageSpan(range, now: now).end
        ).minutes
        return try usageSummary(of: container, environment, range: range, minutes: minutes, now: now)
    }

    /// The shortest usage range that holds every call of an environment's last week; `nil`
    /// for an environment without calls in that week.
    public func fittingUsageRange(of container: ContainerIdentifier, _ environment: Environment) throws -> UsageRange? {
        let now = self.now
        let minutes = try requestLog.usageMinutes(
            container, environment, fromMinute: UsageSpan.earliestMinute(now: now), toMinute: now / 60_000 + 1
        ).minutes
        return Self.fittingUsageRange(minutes, now: now)
    }

    /// What a usage page shows from one read of the usage minutes: the range asked for (or,
    /// without one, ``fittingUsageRange(of:_:)``'s, else a day), the report over it and its summary.
    public func usageOverview(of container: ContainerIdentifier, _ environment: Environment, range: UsageRange?) throws -> UsageOverview {
        let now = self.now
        // The week's minutes hold every range's and tell which range fits.
        let read = try requestLog.usageMinutes(
            container, environment, fromMinute: UsageSpan.earliestMinute(now: now), toMinute: UsageSpan(.week, now: now).end)
        let range = range ?? Self.fittingUsageRange(read.minutes, now: now) ?? .day
        return UsageOverview(
            range: range,
            report: try usageReport(
                of: container, environment, range: range, minutes: read.minutes, storageBefore: read.storageBefore, now: now),
            summary: try usageSummary(of: container, environment, range: range, minutes: read.minutes, now: now))
    }

    /// The report over `range` from the usage minutes read from its first bucket or earlier,
    /// `storageBefore` being the storage measured before the first of them.
    private func usageReport(
        of container: ContainerIdentifier, _ environment: Environment, range: UsageRange, minutes read: [UsageMinute],
        storageBefore: Int64?, now: Int64
    ) throws -> UsageReport {
        let limits = try limits(of: container, environment)
        let stored = try usage(of: container, environment)
        let span = UsageSpan(range, now: now)
        let bucket = range.bucketMinutes
        var points: [UsagePoint] = []
        var storage = storageBefore
        var minutes = read[...]
        // Minutes before the range only tell the storage it starts with.
        while let minute = minutes.first, minute.minute < span.firstStart {
            minutes = minutes.dropFirst()
            if let measured = minute.storageBytes { storage = measured }
        }
        for index in 0..<range.bucketCount {
            let start = span.firstStart + Int64(index) * bucket
            var point = UsagePoint(start: start * 60_000, requests: 0, errors: 0, bytesIn: 0, bytesOut: 0)
            var latency = LatencyHistogram()
            while let minute = minutes.first, minute.minute < start + bucket {
                minutes = minutes.dropFirst()
                point.requests += minute.requests
                point.errors += minute.errors
                point.bytesIn += minute.bytesIn
                point.bytesOut += minute.bytesOut
                latency.merge(minute.latency)
                if let measured = minute.storageBytes { storage = measured }
            }
            point.p50Microseconds = latency.percentile(0.5)
            point.p99Microseconds = latency.percentile(0.99)
            point.storageBytes = storage
            points.append(point)
        }
        // The storage now is known exactly; the chart ends with it.
        points[points.count - 1].storageBytes = stored.recordBytes
        let month = UsageMeter.monthBounds(of: now)
        return UsageReport(
            range: range, limits: limits, stored: stored, transferThisMonth: try requestLog.transferThisMonth(container, environment),
            monthStart: month.start, points: points)
    }

    /// The summary over `range` from the usage minutes of the last week (which tell the
    /// latest activity) and the range's calls in the request log.
    private func usageSummary(
        of container: ContainerIdentifier, _ environment: Environment, range: UsageRange, minutes: [UsageMinute], now: Int64
    ) throws -> UsageSummary {
        let span = UsageSpan(range, now: now)
        var summary = UsageSummary(
            totals: UsagePoint(start: span.firstStart * 60_000, requests: 0, errors: 0, bytesIn: 0, bytesOut: 0), operations: [],
            callsRead: 0)
        var latency = LatencyHistogram()
        for minute in minutes where minute.requests > 0 && minute.minute < span.end {
            summary.lastActivity = max(summary.lastActivity ?? 0, minute.minute * 60_000)
            guard minute.minute >= span.firstStart else { continue }
            summary.totals.requests += minute.requests
            summary.totals.errors += minute.errors
            summary.totals.bytesIn += minute.bytesIn
            summary.totals.bytesOut += minute.bytesOut
            latency.merge(minute.latency)
        }
        summary.totals.p50Microseconds = latency.percentile(0.5)
        summary.totals.p99Microseconds = latency.percentile(0.99)
        guard summary.totals.requests > 0 else { return summary }
        let calls = try requestLog.entries(
            RequestLogFilter(
                container: container.rawValue, environment: environment.rawValue, from: span.firstStart * 60_000,
                limit: UsageSummary.maximumCallsRead))
        summary.callsRead = calls.count
        var byOperation: [String: (usage: OperationUsage, latency: LatencyHistogram)] = [:]
        var perSecond: [Int64: Int64] = [:]
        for call in calls {
            perSecond[call.time / 1000, default: 0] += 1
            var entry =
                byOperation[call.operation] ?? (
                    OperationUsage(operation: call.operation, requests: 0, errors: 0, partialFailures: 0), LatencyHistogram()
                )
            entry.usage.requests += 1
            if call.status >= 400 { entry.usage.errors += 1 } else if call.isFailure { entry.usage.partialFailures += 1 }
            entry.latency.add(call.durationMicroseconds)
            byOperation[call.operation] = entry
        }
        summary.peakPerSecond = perSecond.values.max()
        summary.operations = byOperation.values.map { entry in
            var usage = entry.usage
            usage.p50Microseconds = entry.latency.percentile(0.5)
            usage.p99Microseconds = entry.latency.percentile(0.99)
            return usage
        }.sorted { $0.requests != $1.requests ? $0.requests > $1.requests : $0.operation < $1.operation }
        return summary
    }

    /// The shortest range whose buckets hold the first call among `minutes` (the last week's).
    private static func fittingUsageRange(_ minutes: [UsageMinute], now: Int64) -> UsageRange? {
        let weekStart = now / 60_000 - UsageRange.week.bucketMinutes * Int64(UsageRange.week.bucketCount)
        guard let first = minutes.first(where: { $0.requests > 0 && $0.minute >= weekStart && $0.minute <= now / 60_000 })?.minute
        else { return nil }
        // A range shows its buckets whole: its first bucket starts at most this long ago.
        return UsageRange.allCases.first { first >= UsageSpan($0, now: now).firstStart } ?? .week
    }

    /// Bytes of records an environment holds, as the usage counters measure it once a minute.
    func storedBytes(_ container: ContainerIdentifier, _ environment: Environment) throws -> Int64 {
        try self.environment(container, environment).read { reader in try reader.zoneStats().reduce(0) { $0 + $1.bytes } }
    }
}
