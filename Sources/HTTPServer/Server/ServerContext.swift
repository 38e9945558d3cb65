import Logging
import Synchronization

/// What every event loop of a server shares: settings, routes, workers, loggers and counters.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let routes: RouteTable
    let workers: WorkerPool
    let logger: Logger
    let accessLogger: Logger?
    /// The access logger's writer and label when its handler is the server's own buffered one
    /// with no metadata to add: access lines are then written into its buffer directly.
    let accessLogWriter: (writer: BufferedLogWriter, label: String)?
    /// Connections open across all loops, for the connection cap.
    let openConnections = Atomic<Int>(0)
    /// Connections open per client address, for the per-client cap.
    let clientConnections = Mutex<[String: Int]>([:])
    /// The proxies whose headers name the client.
    let trustedProxies: TrustedProxies
    /// The query parameters redacted from logs.
    let redactedQueryParameters: RedactedNames
    /// Path prefixes whose next segment is redacted from logs.
    let redactedPathPrefixes: [String]
    /// Where requests and refusals are counted, if anywhere (the router's).
    let metrics: HTTPMetrics?
    /// The request counters' rows, one per operation of `routes`, when `metrics` is set.
    let requestCounters: RequestCounters?

    // Timeouts in nanoseconds, computed once.
    let headerReadTimeout: UInt64
    let bodyReadTimeout: UInt64
    /// The slowest body rate allowed, in bytes per second (at least 1).
    let minimumBodyBytesPerSecond: UInt64
    let idleTimeout: UInt64
    let writeTimeout: UInt64
    let heartbeatInterval: UInt64
    /// How often each loop checks its deadlines.
    let tick: UInt64

    init(configuration: HTTPServerConfiguration, routes: RouteTable, metrics: HTTPMetrics?, logger: Logger) {
        self.configuration = configuration
        self.routes = routes
        self.metrics = metrics
        requestCounters = metrics.map { _ in RequestCounters(operations: routes.operations) }
        self.logger = logger
        var access = logger
        access[metadataKey: "category"] = nil
        accessLogger = configuration.accessLog ? access : nil
        // Whether access lines are logged at all (the setting, the level) is checked once per
        // request in `logAccess`, before either way of writing them.
        if let handler = access.handler as? BufferedLogHandler, handler.metadata.isEmpty {
            accessLogWriter = (handler.writer, handler.label)
        } else {
            accessLogWriter = nil
        }
        workers = WorkerPool(
            threads: configuration.workerCount, capacity: configuration.workerQueueCapacity, awakeLimit: configuration.awakeWorkerLimit)
        trustedProxies = configuration.trustedProxies
        redactedQueryParameters = RedactedNames(configuration.redactedQueryParameters)
        redactedPathPrefixes = configuration.redactedPathPrefixes
        headerReadTimeout = max(1, configuration.headerReadTimeout.nanoseconds)
        bodyReadTimeout = max(1, configuration.bodyReadTimeout.nanoseconds)
        minimumBodyBytesPerSecond = UInt64(max(1, configuration.minimumBodyBytesPerSecond))
        idleTimeout = max(1, configuration.idleTimeout.nanoseconds)
        writeTimeout = max(1, configuration.writeTimeout.nanoseconds)
        heartbeatInterval = max(1_000_000, configuration.eventStreamHeartbeat.nanoseconds)
        let shortest = [headerReadTimeout, bodyReadTimeout, idleTimeout, writeTimeout, heartbeatInterval].min()!
        tick = min(max(shortest / 4, 5_000_000), 50_000_000)
    }
}

extension ServerContext {
    /// Counts a new connection from `client`; `false`, counting nothing, when it already has as
    /// many as it may.
    func admitConnection(from client: String) -> Bool {
        clientConnections.withLock { open in
            let count = open[client, default: 0]
            guard count < configuration.maxConnectionsPerClient else { return false }
            open[client] = count + 1
            return true
        }
    }

    /// Uncounts a closed connection from `client`.
    func releaseConnection(from client: String) {
        clientConnections.withLock { open in
            let count = (open[client] ?? 1) - 1
            open[client] = count > 0 ? count : nil
        }
    }
}
