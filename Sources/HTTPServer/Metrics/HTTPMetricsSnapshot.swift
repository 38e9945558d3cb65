/// The counts of an ``HTTPMetrics`` at one moment, summed over the server's event loops.
public struct HTTPMetricsSnapshot: Sendable {
    /// What was counted of one operation's requests.
    public struct Operation: Sendable {
        /// The operation.
        public var operation: RouteOperation
        /// Responses by status class: index 0 counts 1xx, … index 4 counts 5xx.
        public var responsesByStatusClass: [UInt64]
        /// Requests that took at most each of ``HTTPMetrics/latencyBounds`` (cumulative, as
        /// Prometheus' buckets are); the requests beyond the last bound are `count` minus its last.
        public var latencyBuckets: [UInt64]
        /// The time all its requests took together, in seconds.
        public var latencySeconds: Double
        /// How many requests were answered.
        public var count: UInt64 { responsesByStatusClass.reduce(0, +) }
    }

    /// Every operation of the routes, ``RouteOperation/other`` first, then in order.
    public var operations: [Operation]
    /// Connections open now.
    public var openConnections: Int
    /// Connections refused because the server had as many open as it may.
    public var connectionsRefusedAtServerCap: Int
    /// Connections refused because their client had as many open as it may.
    public var connectionsRefusedAtClientCap: Int
    /// Requests refused with 503 because the worker pool's queue was full.
    public var requestsRefusedBusy: Int
}
