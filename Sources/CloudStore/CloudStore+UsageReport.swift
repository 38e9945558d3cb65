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

    /// Bytes of records an environment holds, as the usage counters measure it once a minute.
    func storedBytes(_ container: ContainerIdentifier, _ environment: Environment) throws -> Int64 {
        try self.environment(container, environment).read { reader in try reader.zoneStats().reduce(0) { $0 + $1.bytes } }
    }
}
