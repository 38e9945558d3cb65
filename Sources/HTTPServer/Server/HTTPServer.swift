import CLinux
import Dispatch
import Foundation
import Logging
import Synchronization

/// An HTTP/1.1 server on non-blocking POSIX sockets: one epoll event loop per core for I/O,
/// handlers on a bounded worker pool.
///
/// ```swift
/// var router = Router()
/// router.get("/healthz", options: .onEventLoop) { _ in .json(#"{"status":"ok"}"#) }
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 8080), router: router, logger: logger)
/// let port = try server.start()
/// server.waitForTerminationSignal()   // SIGTERM or SIGINT, then a graceful shutdown
/// ```
public final class HTTPServer: Sendable {
    private struct State {
        var started = false
        var stopped = false
        var port: Int?
        var mailboxes: [LoopMailbox] = []
    }

    /// The settings the server runs with.
    public let configuration: HTTPServerConfiguration
    private let context: ServerContext
    private let state = Mutex(State())
    private let loopsFinished = DispatchGroup()
    private let stoppedGroup = DispatchGroup()
    private let shutdownOnce = Mutex(false)

    /// Creates a server; nothing is bound until `start()`.
    /// - Parameters:
    ///   - configuration: Address, threads, limits and timeouts.
    ///   - router: The routes; compiled once here.
    ///   - logger: Receives errors, and one access-log line per request at `info`.
    public init(configuration: HTTPServerConfiguration = HTTPServerConfiguration(), router: Router, logger: Logger) {
        self.configuration = configuration
        context = ServerContext(configuration: configuration, routes: RouteTable(router), metrics: router.metrics, logger: logger)
        if let counters = context.requestCounters {
            router.metrics?.attach(counters) { [weak context] in context?.openConnections.load(ordering: .relaxed) ?? 0 }
        }
    }

    /// The bound port once started.
    public var port: Int? { state.withLock { $0.port } }

    /// The number of connections open right now.
    public var openConnections: Int { context.openConnections.load(ordering: .relaxed) }

    /// Binds the listening sockets and starts the event loops and workers.
    /// - Returns: The bound port (useful when the configuration asks for port 0).
    /// - Throws: `HTTPServerError` if the address cannot be bound.
    @discardableResult
    public func start() throws -> Int {
        try state.withLock { state throws(HTTPServerError) -> Void in
            guard !state.started else { throw HTTPServerError(operation: "start", message: "the server was already started") }
            state.started = true
        }
        if configuration.raiseFileDescriptorLimit {
            let limit = CLinux_raise_nofile_limit()
            if limit >= 0 && limit < Int64(configuration.maxConnections + 64) {
                context.logger.warning("open-files limit \(limit) is below maxConnections \(configuration.maxConnections)")
            }
        }
        let loopCount = max(1, configuration.eventLoopCount)
        let (listeners, port) = try Listener.open(
            host: configuration.host, port: configuration.port, count: loopCount, backlog: configuration.listenBacklog
        )
        var mailboxes: [LoopMailbox] = []
        var epolls: [Int32] = []
        do {
            for _ in 0..<loopCount {
                mailboxes.append(try LoopMailbox())
                let epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
                guard epoll >= 0 else { throw HTTPServerError.system("epoll_create1", errno) }
                epolls.append(epoll)
            }
        } catch {
            for fd in listeners + epolls { close(fd) }
            throw error
        }
        state.withLock {
            $0.port = port
            $0.mailboxes = mailboxes
        }
        context.workers.start()
        stoppedGroup.enter()
        let context = self.context
        let listenAddress = ListenAddress(host: configuration.host, port: port)
        for index in 0..<loopCount {
            loopsFinished.enter()
            let mailbox = mailboxes[index]
            let listener = listeners[index]
            let epoll = epolls[index]
            let group = loopsFinished
            let thread = Thread {
                let loop = EventLoop(
                    index: index, context: context, mailbox: mailbox, listener: listener, epoll: epoll, listenAddress: listenAddress)
                loop.run()
                group.leave()
            }
            thread.name = "cumulus-loop-\(index)"
            thread.start()
        }
        return port
    }

    /// Blocks until the server has stopped.
    public func wait() {
        let started = state.withLock { $0.started }
        guard started else { return }
        stoppedGroup.wait()
    }

    /// Stops gracefully: stops accepting, lets in-flight requests finish (up to `gracePeriod`,
    /// the configured one by default), closes idle connections, ends event streams, answers
    /// pending long-polls with their timeout response, then stops the workers. Returns when done.
    public func shutdown(gracePeriod: Duration? = nil) {
        let first = shutdownOnce.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        let mailboxes = state.withLock { $0.mailboxes }
        guard first, !mailboxes.isEmpty else {
            wait()
            return
        }
        let grace = gracePeriod ?? configuration.shutdownGracePeriod
        let deadline = CLinux_monotonic_coarse_ns() + grace.nanoseconds
        for mailbox in mailboxes { mailbox.post(.shutdown(deadline: deadline)) }
        loopsFinished.wait()
        context.workers.shutdown(timeout: .seconds(1))
        state.withLock { $0.stopped = true }
        stoppedGroup.leave()
    }

    /// Blocks until SIGTERM or SIGINT arrives, then shuts down gracefully. A second signal
    /// exits the process at once.
    public func waitForTerminationSignal(gracePeriod: Duration? = nil) {
        TerminationSignal.wait()
        context.logger.notice("shutting down")
        shutdown(gracePeriod: gracePeriod)
    }
}

extension HTTPServer {
    /// Whether the calling thread is an event loop of a running server, where nothing may block.
    public static var isOnEventLoop: Bool { CLinux_is_event_loop_thread() != 0 }
}
