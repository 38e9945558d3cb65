import CLinux
import Glibc
import Logging

/// One event-loop thread: an epoll set with its own listening socket, the connections it
/// accepted, and a mailbox for work finished on other threads.
///
/// Everything here runs on the loop's thread only; other threads reach it through `mailbox`.
final class EventLoop {
    let index: Int
    let context: ServerContext
    let mailbox: LoopMailbox
    /// The address the listener is bound to, handed to every request.
    let listenAddress: ListenAddress
    /// The current monotonic time, refreshed after every epoll_wait.
    private(set) var now: UInt64
    /// The `Date:` header line for the current second, CRLF included.
    private(set) var dateLine: [UInt8] = []
    var requestIDs: RequestIDGenerator
    /// Scratch space every read on this loop goes through.
    let readBuffer: UnsafeMutableRawBufferPointer
    private(set) var draining = false
    /// This loop's request counters, when the server counts requests.
    let requestCounters: RequestCounterSlab?

    private var listener: Int32
    private let epoll: Int32
    private var connections: [Connection?] = []
    private var connectionCount = 0
    private var serial: UInt32 = 0
    private var dateSecond = -1
    private var drainDeadline: UInt64 = 0
    private var nextSweep: UInt64 = 0
    private var spareDescriptor: Int32
    private var messages: [LoopMessage] = []
    private let events: UnsafeMutableRawPointer
    private static let maxEvents: Int32 = 512
    private static let listenerToken: UInt64 = 1 << 40
    private static let mailboxToken: UInt64 = 1 << 41
    static let readMask = EPOLLIN.rawValue | EPOLLRDHUP.rawValue
    static let writeMask = EPOLLOUT.rawValue

    init(index: Int, context: ServerContext, mailbox: LoopMailbox, listener: Int32, epoll: Int32, listenAddress: ListenAddress) {
        self.index = index
        self.listenAddress = listenAddress
        self.context = context
        self.mailbox = mailbox
        self.listener = listener
        self.epoll = epoll
        now = CLinux_monotonic_coarse_ns()
        requestIDs = RequestIDGenerator(loopIndex: index)
        requestCounters = context.requestCounters?.makeSlab()
        readBuffer = .allocate(byteCount: 64 * 1024, alignment: 16)
        events = .allocate(byteCount: Int(CLinux_epoll_event_size()) * Int(EventLoop.maxEvents), alignment: 16)
        // Kept open so that, when the process runs out of descriptors, one can be freed to
        // accept and close a pending connection instead of spinning on a readable listener.
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
    }

    deinit {
        readBuffer.deallocate()
        events.deallocate()
    }

    // MARK: - Running

    /// Runs until shutdown has closed every connection.
    func run() {
        CLinux_set_event_loop_thread(1)
        refreshDate()
        _ = CLinux_epoll_ctl(epoll, EPOLL_CTL_ADD, listener, EPOLLIN.rawValue, EventLoop.listenerToken)
        _ = CLinux_epoll_ctl(epoll, EPOLL_CTL_ADD, mailbox.wakeDescriptor, EPOLLIN.rawValue, EventLoop.mailboxToken)
        let timeout = Int32(max(1, context.tick / 1_000_000))
        let eventPointer = events.assumingMemoryBound(to: epoll_event.self)
        while true {
            // Jobs waiting for a worker are looked at again within a millisecond, in case the
            // workers awake are all blocked.
            let count = CLinux_epoll_wait(epoll, eventPointer, EventLoop.maxEvents, context.workers.hasBacklog ? 1 : timeout)
            now = CLinux_monotonic_coarse_ns()
            if count < 0 && errno != EINTR {
                context.logger.critical("epoll_wait failed: errno \(errno)")
                break
            }
            for position in 0..<max(0, count) {
                let event = CLinux_epoll_event_at(eventPointer, position)!
                let token = CLinux_epoll_event_data(event)
                let mask = CLinux_epoll_event_mask(event)
                switch token {
                case EventLoop.listenerToken: acceptConnections()
                case EventLoop.mailboxToken: deliverMessages()
                default: connectionEvent(descriptor: Int32(truncatingIfNeeded: token), mask: mask)
                }
            }
            context.workers.wakeIfStuck()
            if now >= nextSweep {
                sweep()
                nextSweep = now + context.tick
            }
            if draining && (connectionCount == 0 || now >= drainDeadline) { break }
        }
        for connection in connections { connection?.close() }
        if listener >= 0 { close(listener) }
        close(epoll)
        if spareDescriptor >= 0 { close(spareDescriptor) }
        CLinux_set_event_loop_thread(0)
    }

    private func connectionEvent(descriptor: Int32, mask: UInt32) {
        guard let connection = connection(at: descriptor) else { return }
        if mask & (EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLHUP.rawValue | EPOLLERR.rawValue) != 0 {
            connection.readable()
        }
        if mask & EPOLLOUT.rawValue != 0, !connection.isClosed {
            connection.writable()
        }
    }

    private func connection(at descriptor: Int32) -> Connection? {
        let slot = Int(descriptor)
        return slot >= 0 && slot < connections.count ? connections[slot] : nil
    }

    // MARK: - Accepting

    private func acceptConnections() {
        for _ in 0..<64 {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let fd = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    CLinux_accept4(listener, $0, &length, Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue))
                }
            }
            if fd < 0 {
                switch errno {
                case EINTR, ECONNABORTED: continue
                case EMFILE, ENFILE: shedWithSpareDescriptor()
                case EAGAIN, EWOULDBLOCK: break
                default: context.logger.warning("accept failed: errno \(errno)")
                }
                return
            }
            if draining {
                close(fd)
                continue
            }
            let open = context.openConnections.wrappingAdd(1, ordering: .relaxed).newValue
            if open > context.configuration.maxConnections {
                context.openConnections.wrappingSubtract(1, ordering: .relaxed)
                context.metrics?.refusedAtServerCap.wrappingAdd(1, ordering: .relaxed)
                refuse(fd, reason: "\(context.configuration.maxConnections) connections open")
                continue
            }
            let remoteAddress = Socket.describe(storage)
            let client = ClientAddress(peer: remoteAddress)
            // A trusted proxy carries many clients (and their long polls): only the global cap
            // applies to it. Decided here once per connection, so that requests from anyone
            // else pay nothing for proxies.
            let fromTrustedProxy = !context.trustedProxies.isEmpty && IPAddress(storage).map(context.trustedProxies.contains) == true
            guard fromTrustedProxy || context.admitConnection(from: client.host) else {
                context.openConnections.wrappingSubtract(1, ordering: .relaxed)
                context.metrics?.refusedAtClientCap.wrappingAdd(1, ordering: .relaxed)
                refuse(fd, reason: "\(context.configuration.maxConnectionsPerClient) connections open from \(client.host)")
                continue
            }
            Socket.setOption(fd, Int32(IPPROTO_TCP), TCP_NODELAY, 1)
            serial &+= 1
            let connection = Connection(
                loop: self, descriptor: fd, serial: serial, remoteAddress: remoteAddress, client: client, fromTrustedProxy: fromTrustedProxy
            )
            let slot = Int(fd)
            if slot >= connections.count {
                connections.append(contentsOf: repeatElement(nil, count: max(slot + 1 - connections.count, connections.count)))
            }
            connections[slot] = connection
            connectionCount += 1
            _ = CLinux_epoll_ctl(epoll, EPOLL_CTL_ADD, fd, EventLoop.readMask, UInt64(UInt32(bitPattern: fd)))
        }
    }

    /// Answers a connection over a cap with a 503 and closes it.
    private func refuse(_ fd: Int32, reason: String) {
        let text =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: 56\r\n"
            + "Retry-After: 1\r\nConnection: close\r\n\r\n{\"status\":503,\"error\":\"too many connections, try again\"}"
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
        shutdown(fd, Int32(SHUT_WR))
        // Read what the client already sent so that closing does not reset the connection
        // before the 503 arrives.
        _ = recv(fd, readBuffer.baseAddress, readBuffer.count, Int32(MSG_DONTWAIT))
        close(fd)
        context.logger.warning("connection refused: \(reason)")
    }

    private func shedWithSpareDescriptor() {
        guard spareDescriptor >= 0 else { return }
        close(spareDescriptor)
        let fd = accept(listener, nil, nil)
        if fd >= 0 { close(fd) }
        spareDescriptor = open("/dev/null", O_RDONLY | O_CLOEXEC)
        context.logger.error("out of file descriptors: a connection was dropped")
    }

    // MARK: - Connections

    func setInterest(_ connection: Connection, _ mask: UInt32) {
        _ = CLinux_epoll_ctl(epoll, EPOLL_CTL_MOD, connection.descriptor, mask, UInt64(UInt32(bitPattern: connection.descriptor)))
    }

    func connectionClosed(_ connection: Connection) {
        let slot = Int(connection.descriptor)
        if slot < connections.count, connections[slot] === connection {
            connections[slot] = nil
            connectionCount -= 1
            context.openConnections.wrappingSubtract(1, ordering: .relaxed)
            if !connection.fromTrustedProxy { context.releaseConnection(from: connection.client.host) }
        }
    }

    // MARK: - Messages

    private func deliverMessages() {
        var value: eventfd_t = 0
        _ = eventfd_read(mailbox.wakeDescriptor, &value)
        mailbox.drain(into: &messages)
        for message in messages {
            switch message {
            case .response(let id, let response):
                target(id)?.handlerFinished(response)
            case .streamData(let id, let bytes):
                target(id)?.streamData(bytes)
            case .streamEnd(let id):
                target(id)?.streamEnded()
            case .shutdown(let deadline):
                beginDraining(deadline: deadline)
            }
        }
        messages.removeAll(keepingCapacity: true)
    }

    private func target(_ id: ConnectionID) -> Connection? {
        guard let connection = connection(at: id.descriptor), connection.serial == id.serial else { return nil }
        return connection
    }

    private func beginDraining(deadline: UInt64) {
        guard !draining else { return }
        draining = true
        drainDeadline = deadline
        if listener >= 0 {
            _ = CLinux_epoll_ctl(epoll, EPOLL_CTL_DEL, listener, 0, 0)
            close(listener)
            listener = -1
        }
        for connection in connections { connection?.beginDraining() }
    }

    // MARK: - Timers

    private func sweep() {
        refreshDate()
        for connection in connections { connection?.checkTimers() }
    }

    private func refreshDate() {
        let second = HTTPDate.nowSeconds
        guard second != dateSecond else { return }
        dateSecond = second
        dateLine = Array("Date: \(HTTPDate.format(second))\r\n".utf8)
    }
}
