import Foundation
import Glibc
import HTTPServer
import Logging
import TestSupport

/// A server started on a free loopback port for one test, with raw-socket clients.
struct TestServer {
    let server: HTTPServer
    let port: Int
    let log: CapturedLog

    /// Starts a server with the given routes and settings on 127.0.0.1, port 0.
    static func start(
        configure: (inout HTTPServerConfiguration) -> Void = { _ in },
        routes: (inout Router) -> Void
    ) throws -> TestServer {
        var configuration = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        configuration.eventLoopCount = 2
        configuration.workerCount = 4
        configure(&configuration)
        var router = Router()
        routes(&router)
        let log = CapturedLog()
        let logger = log.logger()
        let server = HTTPServer(configuration: configuration, router: router, logger: logger)
        let port = try server.start()
        return TestServer(server: server, port: port, log: log)
    }

    /// A connected raw client.
    func client(timeout: TimeInterval = 10) throws -> RawClient {
        try RawClient(port: port, timeout: timeout)
    }

    /// Sends one request on a new connection and reads the response.
    func request(_ text: String) throws -> TestResponse {
        let client = try client()
        defer { client.close() }
        try client.send(text)
        return try client.readResponse()
    }

    func stop() {
        server.shutdown(gracePeriod: .seconds(2))
    }
}

/// An HTTP/1.1 GET with a Host header.
func get(_ path: String, headers: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(headers)\r\n"
}
