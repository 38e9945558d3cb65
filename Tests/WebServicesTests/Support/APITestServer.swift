import CloudStore
import Foundation
import Glibc
import HTTPServer
import Logging
@testable import WebServices

/// A CloudStore in a temporary directory served by the real HTTP server with the API mounted,
/// on a free port of 127.0.0.1, with one container, an API token, and a user.
final class APITestServer {
    let directory: String
    let store: CloudStore
    let api: WebServices
    let server: HTTPServer
    let port: Int
    let container: ContainerIdentifier
    let apiToken: APIToken
    let userName = "alice"
    let password = "correct horse battery"

    init(courierTimeout: Duration = .seconds(30), configure: (inout CloudStoreConfiguration) -> Void = { _ in }) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-api-\(UUID().uuidString)").path
        var configuration = CloudStoreConfiguration(dataDirectory: directory)
        configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
        configure(&configuration)
        store = try CloudStore(configuration: configuration)
        container = try ContainerIdentifier("iCloud.com.example.Notes")
        try store.createContainer(container)
        apiToken = try store.createAPIToken(container, .development, allowedOrigins: ["https://app.example.com"])
        try store.addUser(container, name: userName, password: password, emailAddress: "alice@example.com", firstName: "Alice", lastName: "Liddell")

        api = WebServices(store: store, configuration: WebServicesConfiguration(
            courierTimeout: courierTimeout,
            signInURL: { base, token, origin in "\(base)/signin?ckAPIToken=\(token)" + (origin.map { "&origin=\($0)" } ?? "") }))
        var router = Router()
        api.mount(on: &router)
        var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        http.eventLoopCount = 1
        http.workerCount = 4
        var logger = Logger(label: "test")
        logger.logLevel = .critical
        server = HTTPServer(configuration: http, router: router, logger: logger)
        port = try server.start()
    }

    deinit {
        server.shutdown(gracePeriod: .seconds(1))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// A web auth token for the test user.
    func signIn() throws -> String {
        try store.signIn(container, name: userName, password: password).webAuthToken
    }

    /// The path of an endpoint of the test container.
    func path(_ database: String, _ operation: String, environment: String = "development") -> String {
        "/database/1/\(container)/\(environment)/\(database)/\(operation)"
    }

    /// The path with the API token (and a web auth token) in its query.
    func authorized(_ path: String, webAuthToken: String? = nil) -> String {
        var result = "\(path)?ckAPIToken=\(apiToken.token)"
        if let webAuthToken { result += "&ckWebAuthToken=\(PercentEncoding.encodeComponent(webAuthToken))" }
        return result
    }

    /// Sends a request and reads the whole response.
    func send(_ method: String, _ target: String, body: String? = nil, headers: [String: String] = [:]) throws -> APIResponse {
        try HTTPTestClient.send(port: port, method: method, target: target, body: body.map { Array($0.utf8) }, headers: headers)
    }

    /// POSTs JSON to an endpoint as the world (API token only) or a signed-in user.
    func post(_ database: String, _ operation: String, _ json: String, webAuthToken: String? = nil) throws -> APIResponse {
        try send("POST", authorized(path(database, operation), webAuthToken: webAuthToken), body: json, headers: ["Content-Type": "text/plain"])
    }
}

/// A response as a test reads it.
struct APIResponse {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? { headers.first { $0.name.lowercased() == name.lowercased() }?.value }
    var text: String { String(decoding: body, as: UTF8.self) }
    /// The body as JSON.
    func json() throws -> JSONValue { try JSONValue.parse(body) }
}

/// A minimal HTTP/1.1 client over a socket: one request per connection.
enum HTTPTestClient {
    static func send(port: Int, method: String, target: String, body: [UInt8]?, headers: [String: String]) throws -> APIResponse {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw TestError("socket failed") }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 40, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw TestError("connect failed") }
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        let bytes = Array(head.utf8) + (body ?? [])
        var sent = 0
        while sent < bytes.count {
            let written = bytes[sent...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard written > 0 else { throw TestError("send failed") }
            sent += written
        }
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = recv(descriptor, &buffer, buffer.count, 0)
            if count <= 0 { break }
            received += buffer[0..<count]
        }
        return try parse(received)
    }

    private static func parse(_ bytes: [UInt8]) throws -> APIResponse {
        guard let end = bytes.firstRange(of: Array("\r\n\r\n".utf8)) else { throw TestError("no response head in \(bytes.count) bytes") }
        let lines = String(decoding: bytes[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let status = Int(lines[0].split(separator: " ")[1]) ?? 0
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var body = Array(bytes[end.upperBound...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = dechunk(body)
        }
        return APIResponse(status: status, headers: headers, body: body)
    }

    private static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var result: [UInt8] = []
        var index = 0
        while let lineEnd = bytes[index...].firstRange(of: Array("\r\n".utf8)) {
            let size = Int(String(decoding: bytes[index..<lineEnd.lowerBound], as: UTF8.self), radix: 16) ?? 0
            if size == 0 { break }
            result += bytes[lineEnd.upperBound..<lineEnd.upperBound + size]
            index = lineEnd.upperBound + size + 2
        }
        return result
    }
}

struct TestError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
