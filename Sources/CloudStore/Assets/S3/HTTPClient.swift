import Synchronization

/// A small blocking HTTP/1.1 client for one server (`host:port`, plain HTTP), keeping idle
/// connections open for the next request. Safe to use from any thread: each request takes a
/// connection of its own from the pool or opens one.
final class HTTPClient: Sendable {
    /// The server's host name or address.
    let host: String
    /// The server's port.
    let port: Int
    /// How long connecting, and each read or write, may wait.
    let timeout: Duration
    /// The most idle connections kept.
    let maximumIdle: Int
    /// The `Host` header: the port is left out when it is the default.
    let hostHeader: String
    private let idle = Mutex<[HTTPClientConnection]>([])

    /// Creates a client; no connection is opened until the first request.
    init(host: String, port: Int, timeout: Duration, maximumIdle: Int = 16) {
        self.host = host
        self.port = port
        self.timeout = timeout
        self.maximumIdle = maximumIdle
        let bracketed = host.contains(":") ? "[\(host)]" : host
        hostHeader = port == 80 ? bracketed : "\(bracketed):\(port)"
    }

    deinit {
        for connection in idle.withLock({ $0 }) { connection.close() }
    }

    /// Sends a request and reads its whole response. A kept-alive connection the server closed
    /// meanwhile is replaced once by a new one; requests here are all safe to repeat.
    /// - Throws: ``HTTPClientFailure`` when the server cannot be reached or answers other than
    ///   in HTTP.
    func send(_ request: HTTPClientRequest) throws(HTTPClientFailure) -> HTTPClientResponse {
        if let kept = idle.withLock({ $0.popLast() }) {
            do {
                return try exchange(request, on: kept)
            } catch  where error.closedBeforeAnswer {
                // Dropped while idle: every other kept connection may be as old.
                for connection in idle.withLock({ connections in
                    defer { connections.removeAll() }; return connections
                }) {
                    connection.close()
                }
            }
        }
        return try exchange(request, on: HTTPClientConnection.connect(host: host, port: port, timeout: timeout))
    }

    private func exchange(_ request: HTTPClientRequest, on connection: HTTPClientConnection) throws(HTTPClientFailure) -> HTTPClientResponse
    {
        var connection = connection
        let response: HTTPClientResponse
        let reusable: Bool
        do {
            try connection.send(request, host: hostHeader)
            (response, reusable) = try connection.receive(for: request)
        } catch {
            connection.close()
            throw error
        }
        if reusable {
            let kept = idle.withLock { connections in
                guard connections.count < maximumIdle else { return false }
                connections.append(connection)
                return true
            }
            if !kept { connection.close() }
        } else {
            connection.close()
        }
        return response
    }

    /// How many idle connections the pool holds.
    var idleConnectionCount: Int { idle.withLock { $0.count } }
}
