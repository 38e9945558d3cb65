import Synchronization

/// What a server counts of the requests it answers and the connections it holds, for a metrics
/// endpoint: requests by operation (``RouteOptions/operation``) and status class, their latency
/// as a histogram with fixed buckets, open connections, and what was refused at the server's limits.
///
/// Set one as ``Router/metrics`` before the server starts; ``snapshot()`` reads it at any time.
/// Counting costs a request no lock and no allocation: each event loop adds to rows of its own,
/// laid out when the server starts, one per operation of its routes; a snapshot sums the loops.
public final class HTTPMetrics: Sendable {
    /// The upper bounds of the latency histogram's buckets, in seconds.
    public static let latencyBounds: [Double] = [
        0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60,
    ]

    private struct State {
        var counters: RequestCounters?
        var openConnections: (@Sendable () -> Int)?
    }
    private let state = Mutex(State())
    /// Connections refused at the server's connection cap.
    let refusedAtServerCap = Atomic<Int>(0)
    /// Connections refused at the per-client cap.
    let refusedAtClientCap = Atomic<Int>(0)
    /// Requests refused because no worker could take them.
    let refusedBusy = Atomic<Int>(0)

    /// Creates empty metrics.
    public init() {}

    /// Reads the counters of a starting server from now on, and its open connections from
    /// `openConnections`; what an earlier server counted is forgotten.
    func attach(_ counters: RequestCounters, openConnections: @escaping @Sendable () -> Int) {
        state.withLock {
            $0.counters = counters
            $0.openConnections = openConnections
        }
    }

    /// The counts now.
    public func snapshot() -> HTTPMetricsSnapshot {
        let (counters, openConnections) = state.withLock { ($0.counters, $0.openConnections) }
        return HTTPMetricsSnapshot(
            operations: counters?.snapshot() ?? [], openConnections: openConnections?() ?? 0,
            connectionsRefusedAtServerCap: refusedAtServerCap.load(ordering: .relaxed),
            connectionsRefusedAtClientCap: refusedAtClientCap.load(ordering: .relaxed),
            requestsRefusedBusy: refusedBusy.load(ordering: .relaxed))
    }
}
