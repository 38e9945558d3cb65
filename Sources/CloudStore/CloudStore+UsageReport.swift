extension CloudStore {
    // MARK: - Usage over time

    /// A container environment's usage against its limits, and over `range` in equal buckets
    /// ending with the current one.
    public func usageReport(of container: ContainerIdentifier, _ environment: Environment, range: UsageRange) throws -> UsageReport {
        let limits = try limits(of: container, environment)
        let stored = try usage(of: container, environment)
        let now = self.now
        let bucket = range.bucketMinutes
        // Buckets are aligned to their size, the last one holding now.
        let lastStart = now / 60_000 / bucket * bucket
        let firstStart = lastStart - bucket * Int64(range.bucketCount - 1)
        let read = try requestLog.usageMinutes(container, environment, fromMinute: firstStart, toMinute: lastStart + bucket)
        var points: [UsagePoint] = []
        var storage = read.storageBefore
        var minutes = read.minutes[...]
        for index in 0..<range.bucketCount {
            let start = firstStart + Int64(index) * bucket
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

    /// An environment's calls over `range` in figures, with the breakdown by operation (see
    /// ``UsageSummary``); the range ends with the current bucket, as ``usageReport(of:_:range:)``'s.
    public func usageSummary(of container: ContainerIdentifier, _ environment: Environment, range: UsageRange) throws -> UsageSummary {
        let now = self.now
        let bucket = range.bucketMinutes
        let lastStart = now / 60_000 / bucket * bucket
        let firstStart = lastStart - bucket * Int64(range.bucketCount - 1)
        // The week's minutes say when the latest call was; the range's are among them.
        let weekStart = min(firstStart, now / 60_000 - UsageRange.week.bucketMinutes * Int64(UsageRange.week.bucketCount))
        let minutes = try requestLog.usageMinutes(container, environment, fromMinute: weekStart, toMinute: lastStart + bucket).minutes
        var summary = UsageSummary(
            totals: UsagePoint(start: firstStart * 60_000, requests: 0, errors: 0, bytesIn: 0, bytesOut: 0), operations: [], callsRead: 0)
        var latency = LatencyHistogram()
        for minute in minutes where minute.requests > 0 {
            summary.lastActivity = max(summary.lastActivity ?? 0, minute.minute * 60_000)
            guard minute.minute >= firstStart else { continue }
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
                container: container.rawValue, environment: environment.rawValue, from: firstStart * 60_000,
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

    /// The shortest usage range that holds every call of an environment's last week; `nil`
    /// for an environment without calls in that week.
    public func fittingUsageRange(of container: ContainerIdentifier, _ environment: Environment) throws -> UsageRange? {
        let now = self.now
        let weekMinutes = UsageRange.week.bucketMinutes * Int64(UsageRange.week.bucketCount)
        let minutes = try requestLog.usageMinutes(
            container, environment, fromMinute: now / 60_000 - weekMinutes, toMinute: now / 60_000 + 1
        ).minutes
        guard let first = minutes.first(where: { $0.requests > 0 })?.minute else { return nil }
        // A range shows its buckets whole: its first bucket starts at most this long ago.
        return UsageRange.allCases.first { range in
            let bucket = range.bucketMinutes
            let firstStart = (now / 60_000 / bucket * bucket) - bucket * Int64(range.bucketCount - 1)
            return first >= firstStart
        } ?? .week
    }

    /// Bytes of records an environment holds, as the usage counters measure it once a minute.
    func storedBytes(_ container: ContainerIdentifier, _ environment: Environment) throws -> Int64 {
        try self.environment(container, environment).read { reader in try reader.zoneStats().reduce(0) { $0 + $1.bytes } }
    }
}
