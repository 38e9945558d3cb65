import CloudStore
import Console
import Foundation
import HTTPServer
import Logging

/// The repository's `Templates/` folder, found from this file's place in the package.
let repositoryTemplates = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("Templates").path

/// A server on a free 127.0.0.1 port with the console's routes, over a CloudStore in a fresh
/// temporary directory; both are removed when the value is released.
final class ConsoleTestServer {
    let directory: String
    let store: CloudStore
    let server: HTTPServer
    let port: Int
    /// A container created at start (unless asked not to).
    let container: ContainerIdentifier

    static let version = "9.9.9-test"

    init(createContainer: Bool = true, publicURL: String? = nil) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-console-\(UUID().uuidString)").path
        var configuration = CloudStoreConfiguration(dataDirectory: directory)
        // Debug builds run scrypt unoptimised; a small cost keeps tests fast and changes nothing they check.
        configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
        store = try CloudStore(configuration: configuration)
        container = try ContainerIdentifier("iCloud.com.example.Tests")
        if createContainer { try store.createContainer(container) }

        var router = Router()
        try Console.mount(
            on: &router, store: store,
            configuration: ConsoleConfiguration(templatesDirectory: repositoryTemplates, publicURL: publicURL, version: Self.version))
        var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
        http.eventLoopCount = 1
        http.workerCount = 2
        http.accessLog = false
        server = HTTPServer(configuration: http, router: router, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
        port = try server.start()
    }

    deinit {
        server.shutdown(gracePeriod: .seconds(2))
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Sends a GET.
    func get(_ target: String, headers: [(String, String)] = []) throws -> TestResponse {
        try HTTPTestClient.send(port: port, method: "GET", target: target, headers: headers, body: [])
    }

    /// Posts a form, encoding `fields` as browsers do (spaces as `+`, everything else escaped).
    func post(_ target: String = "/signin", form fields: [(String, String)], headers: [(String, String)] = []) throws -> TestResponse {
        try post(target, body: FormEncoding.encode(fields), headers: [("Content-Type", "application/x-www-form-urlencoded")] + headers)
    }

    /// Posts a raw body.
    func post(_ target: String, body: String, headers: [(String, String)]) throws -> TestResponse {
        try HTTPTestClient.send(port: port, method: "POST", target: target, headers: headers, body: Array(body.utf8))
    }
}

/// `application/x-www-form-urlencoded` as a browser writes it, independent of the console's own code.
enum FormEncoding {
    static func encode(_ fields: [(String, String)]) -> String {
        fields.map { component($0.0) + "=" + component($0.1) }.joined(separator: "&")
    }

    static func component(_ text: String) -> String {
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)..<Unicode.Scalar(128)))
        allowed.insert(charactersIn: "-._* ")
        return text.addingPercentEncoding(withAllowedCharacters: allowed)!.replacingOccurrences(of: " ", with: "+")
    }
}
