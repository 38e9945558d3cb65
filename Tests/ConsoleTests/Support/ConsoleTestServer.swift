import CloudStore
import Console
import Foundation
import HTTPServer
import Logging
import TestSupport

/// The repository's `Templates/` folder.
let repositoryTemplates = Repository.templates

/// A server on a free 127.0.0.1 port with the console's routes, over a CloudStore in a fresh
/// temporary directory; both are removed when the value is released.
final class ConsoleTestServer {
    private let temporary: TemporaryStore
    let directory: String
    let store: CloudStore
    let server: HTTPServer
    let port: Int
    /// A container created at start (unless asked not to).
    let container: ContainerIdentifier
    /// Every route the console mounted, for tests that walk them all.
    let routes: [(methods: [HTTPMethod], pattern: String)]
    /// The store's clock, when the server was made with `controlledClock`.
    var clock: TestClock { temporary.clock }

    static let version = "9.9.9-test"

    /// - Parameters:
    ///   - controlledClock: Whether the store reads ``clock`` rather than the real time.
    ///   - tailHeartbeat: How often live tails beat and check their credential.
    ///   - allowedHosts: The `Host` values links may be built on besides the listen address.
    ///   - apiOperations: The operations the request log's filter offers.
    ///   - trustedProxies: The proxies whose `X-Forwarded-*` headers name the client.
    init(
        createContainer: Bool = true, publicURL: String? = nil, controlledClock: Bool = false,
        tailHeartbeat: Duration = ConsoleConfiguration.defaultTailHeartbeat, allowedHosts: [String] = [], apiOperations: [String] = [],
        trustedProxies: TrustedProxies = TrustedProxies(), backups: Bool = false
    ) throws {
        temporary = try TemporaryStore(createContainer: createContainer, controlledClock: controlledClock) {
            // `backups`: a backup location, `backups` in the data directory.
            if backups { $0.backups = BackupSchedule(location: .directory($0.dataDirectory + "/backups")) }
        }
        directory = temporary.directory
        store = temporary.store
        container = temporary.container

        var router = Router()
        var configuration = ConsoleConfiguration(templatesDirectory: repositoryTemplates, publicURL: publicURL, version: Self.version)
        configuration.tailHeartbeat = tailHeartbeat
        configuration.allowedHosts = allowedHosts
        configuration.apiOperations = apiOperations
        try Console.mount(on: &router, store: store, configuration: configuration)
        routes = router.routes
        var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        http.eventLoopCount = 1
        http.workerCount = 2
        http.accessLog = false
        http.trustedProxies = trustedProxies
        server = HTTPServer(configuration: http, router: router, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        port = try server.start()
    }

    deinit {
        server.shutdown(gracePeriod: .seconds(2))
    }

    /// Adds the operator `root` and signs them in: the session's cookie header and its form token.
    func signedInOperator() throws -> (cookie: (String, String), csrf: String) {
        try store.addOperator("root", password: "operator password")
        let signedIn = try store.signInOperator("root", password: "operator password", clientAddress: nil)
        return (("Cookie", "cumulus_console=" + signedIn.secret), signedIn.session.csrfToken)
    }

    /// Sends a GET.
    func get(_ target: String, headers: [(String, String)] = []) throws -> TestResponse {
        try HTTPTestClient.send(port: port, method: "GET", target: target, headers: headers)
    }

    /// Posts a form, encoding `fields` as browsers do (spaces as `+`, everything else escaped).
    /// - Parameter source: Another loopback address to send from, such as `127.0.0.2`.
    func post(
        _ target: String = "/signin", form fields: [(String, String)], headers: [(String, String)] = [], from source: String? = nil
    ) throws -> TestResponse {
        try post(
            target, body: FormEncoding.encode(fields), headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers,
            from: source)
    }

    /// Posts a raw body.
    func post(_ target: String, body: String, headers: [(String, String)], from source: String? = nil) throws -> TestResponse {
        try HTTPTestClient.send(port: port, method: "POST", target: target, headers: headers, body: Array(body.utf8), from: source)
    }
}
