import CloudKitWire
import CloudStore
import Foundation
import Glibc
import HTTPServer
import Logging
import TestSupport

@testable import WebServices

/// A CloudStore in a temporary directory served by the real HTTP server with the API mounted,
/// on a free port of 127.0.0.1, with one container, an API token, and a user.
final class APITestServer {
    private let temporary: TemporaryStore
    let directory: String
    let store: CloudStore
    let api: WebServices
    let server: HTTPServer
    let port: Int
    let container: ContainerIdentifier
    let apiToken: APIToken
    let userName = "alice"
    let password = "correct horse battery"

    init(
        courierTimeout: Duration = .seconds(30), logger: Logger? = nil, configure: (inout CloudStoreConfiguration) -> Void = { _ in },
        configureAPI: (inout WebServicesConfiguration) -> Void = { _ in }
    ) throws {
        temporary = try TemporaryStore(container: "iCloud.com.example.Notes", controlledClock: false, configure: configure)
        directory = temporary.directory
        store = temporary.store
        container = temporary.container
        apiToken = try store.createAPIToken(container, .development, allowedOrigins: ["https://app.example.com"])
        try store.addUser(
            container, name: userName, password: password, emailAddress: "alice@example.com", firstName: "Alice", lastName: "Liddell")

        var configuration = WebServicesConfiguration(
            courierTimeout: courierTimeout,
            signInURL: { base, token, origin in "\(base)/signin?ckAPIToken=\(token)" + (origin.map { "&origin=\($0)" } ?? "") })
        if let logger { configuration.logger = logger }
        configureAPI(&configuration)
        api = WebServices(store: store, configuration: configuration)
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
    }

    /// Defines in development a `Note` type with a queryable `___recordID`, `fields` (in the
    /// schema language) and CloudKit's default grants.
    func defineNote(_ fields: String) throws {
        try store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ( "___recordID" REFERENCE QUERYABLE, \(fields),
                                   GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world" );
            """, into: container, .development)
    }

    /// A web auth token for the test user.
    func signIn() throws -> String {
        try store.signIn(container, .development, name: userName, password: password).webAuthToken
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
        try send(
            "POST", authorized(path(database, operation), webAuthToken: webAuthToken), body: json, headers: ["Content-Type": "text/plain"])
    }
}

/// A response as the API tests read it.
typealias APIResponse = TestResponse

extension HTTPTestClient {
    /// Sends a request with headers given as a dictionary, as the API tests write them.
    static func send(port: Int, method: String, target: String, body: [UInt8]?, headers: [String: String]) throws -> TestResponse {
        try send(
            port: port, method: method, target: target, headers: headers.sorted { $0.key < $1.key }.map { ($0.key, $0.value) },
            body: body ?? [])
    }
}
