import Logging
import Synchronization

/// What every event loop of a server shares: settings, routes, workers, loggers and counters.
final class ServerContext: Sendable {
    let configuration: HTTPServerConfiguration
    let routes: RouteTable
    let workers: WorkerPool
    let logger: Logger
    let accessLogger: Logger?
    /// Connections open across all loops, for the connection cap.
    let openConnections = Atomic<Int>(0)

    // Timeouts in nanoseconds, computed once.
    let headerReadTimeout: UInt64
    let bodyReadTimeout: UInt64
    let idleTimeout: UInt64
    let writeTimeout: UInt64
    let heartbeatInterval: UInt64
    /// How often each loop checks its deadlines.
    let tick: UInt64

    init(configuration: HTTPServerConfiguration, routes: RouteTable, logger: Logger) {
        self.configuration = configuration
        self.routes = routes
        self.logger = logger
        var access = logger
        access[metadataKey: "category"] = nil
        accessLogger = configuration.accessLog ? access : nil
        workers = WorkerPool(threads: configuration.workerCount, capacity: configuration.workerQueueCapacity)
        headerReadTimeout = max(1, configuration.headerReadTimeout.nanoseconds)
        bodyReadTimeout = max(1, configuration.bodyReadTimeout.nanoseconds)
        idleTimeout = max(1, configuration.idleTimeout.nanoseconds)
        writeTimeout = max(1, configuration.writeTimeout.nanoseconds)
        heartbeatInterval = max(1_000_000, configuration.eventStreamHeartbeat.nanoseconds)
        let shortest = [headerReadTimeout, bodyReadTimeout, idleTimeout, writeTimeout, heartbeatInterval].min()!
        tick = min(max(shortest / 4, 5_000_000), 50_000_000)
    }
}
