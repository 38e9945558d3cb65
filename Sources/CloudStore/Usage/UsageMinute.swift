/// What one environment of a container served in one minute: the usage counters kept over time.
struct UsageMinute: Hashable, Sendable {
    var container: String
    var environment: String
    /// Minutes since 1970.
    var minute: Int64
    var requests: Int64 = 0
    /// Answers with a status of 400 or more.
    var errors: Int64 = 0
    var bytesIn: Int64 = 0
    var bytesOut: Int64 = 0
    var latency = LatencyHistogram()
    /// Bytes of records the environment held when the minute's first request came; `nil` when
    /// it was not measured.
    var storageBytes: Int64?

    init(container: String, environment: String, minute: Int64) {
        self.container = container
        self.environment = environment
        self.minute = minute
    }

    /// Counts one call.
    mutating func add(_ entry: RequestLogEntry) {
        requests += 1
        if entry.status >= 400 { errors += 1 }
        bytesIn += entry.bytesIn
        bytesOut += entry.bytesOut
        latency.add(entry.durationMicroseconds)
    }

    /// Adds what `other`, the same environment's same minute, counted; the storage measured
    /// first is kept, since storage is a level, not a count.
    mutating func add(_ other: UsageMinute) {
        requests += other.requests
        errors += other.errors
        bytesIn += other.bytesIn
        bytesOut += other.bytesOut
        latency.merge(other.latency)
        storageBytes = storageBytes ?? other.storageBytes
    }
}
