import CloudStore
import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Console
@testable import cumulus

/// The command line against a running server, as a viewer, a developer and a developer limited
/// to one container: each command runs its management route, so the store's decision refuses
/// it (a failed command saying why, nothing changed) or lets it run, as the route declares.
@Suite struct OperatorRoleCommandsTests {
    static let other = "iCloud.com.example.Other"

    /// A console and management API on a free 127.0.0.1 port over `store`.
    final class Server {
        let server: HTTPServer
        let url: String

        init(_ store: CloudStore) throws {
            var router = Router()
            try Console.mount(
                on: &router, store: store, configuration: ConsoleConfiguration(templatesDirectory: Repository.templates, version: "1"))
            var http = HTTPServerConfiguration(host: "127.0.0.1", port: 0)
            (http.eventLoopCount, http.workerCount, http.accessLog) = (1, 2, false)
            server = HTTPServer(configuration: http, router: router, logger: Logger(label: "test") { _ in SwiftLogNoOpLogHandler() })
            url = "http://127.0.0.1:\(try server.start())"
        }

        deinit { server.shutdown(gracePeriod: .seconds(2)) }
    }

    /// One command line, the operation it runs and where.
    struct Command {
        let arguments: [String]
        let operation: String
        let target: OperatorTarget
        var input: String? = nil
    }

    static func commands(_ container: String) throws -> [Command] {
        let c = try ContainerIdentifier(container)
        let place = ["--container", container, "--environment", "development"]
        let production = ["--container", container, "--environment", "production"]
        let dev = OperatorTarget(container: c, environment: .development)
        let prod = OperatorTarget(container: c, environment: .production)
        return [
            Command(arguments: ["containers", "list"], operation: "containers", target: OperatorTarget()),
            Command(arguments: ["containers", "show", container], operation: "container", target: OperatorTarget(container: c)),
            Command(arguments: ["containers", "create", "iCloud.com.example.New"], operation: "createContainer", target: OperatorTarget()),
            Command(arguments: ["export-schema"] + production, operation: "schema", target: prod),
            Command(arguments: ["record-types", "create", "Fresh"] + place, operation: "createRecordType", target: dev),
            Command(arguments: ["record-types", "create", "Fresh"] + production, operation: "createRecordType", target: prod),
            Command(
                arguments: ["zones", "list", "--database", "public"] + place, operation: "zones",
                target: OperatorTarget(container: c, environment: .development, database: .public)),
            Command(
                arguments: ["zones", "list", "--database", "private", "--user", "alice"] + place, operation: "zones",
                target: OperatorTarget(container: c, environment: .development, database: .private)),
            Command(
                arguments: ["zones", "create", "--database", "private", "--user", "alice", "Trips"] + place, operation: "createZone",
                target: OperatorTarget(container: c, environment: .development, database: .private)),
            Command(arguments: ["users", "list", "--container", container], operation: "users", target: OperatorTarget(container: c)),
            Command(
                arguments: ["users", "add", "--container", container, "zed"], operation: "addUser", target: OperatorTarget(container: c),
                input: "a long passphrase\n"),
            Command(arguments: ["tokens", "list", "--container", container], operation: "apiTokens", target: OperatorTarget(container: c)),
            Command(arguments: ["tokens", "create"] + place, operation: "createAPIToken", target: dev),
            Command(arguments: ["logs", "list", "--container", container], operation: "requestLog", target: OperatorTarget(container: c)),
            Command(arguments: ["deploy", "--container", container], operation: "deploySchema", target: OperatorTarget(container: c)),
            Command(arguments: ["audit"], operation: "auditTrail", target: OperatorTarget()),
            Command(arguments: ["operators", "list"], operation: "operators", target: OperatorTarget()),
            Command(
                arguments: ["operators", "add", "mallory", "--role", "owner"], operation: "addOperator", target: OperatorTarget(),
                input: "a long passphrase\n"),
            Command(
                arguments: ["operators", "set-role", "root", "--role", "viewer"], operation: "setOperatorRole", target: OperatorTarget()),
            Command(arguments: ["operators", "remove", "root"], operation: "removeOperator", target: OperatorTarget()),
        ]
    }

    /// What could change: every change is audited; the operators and containers besides.
    static func snapshot(_ store: CloudStore) throws -> String {
        "\(try store.auditEntries(AuditFilter(limit: 10_000)).count) \(try store.operators()) \(try store.containers().map(\.identifier))"
    }

    @Test func everyCommandIsRefusedOrRunsAsTheOperatorsRoleSays() throws {
        let temporary = try TemporaryStore()
        let store = temporary.store
        try store.createContainer(try ContainerIdentifier(Self.other))
        try store.addOperator("root", password: "operator password")
        try store.addUser(temporary.container, name: "alice", password: "a long passphrase")
        try store.importSchema("DEFINE SCHEMA\n RECORD TYPE Note (title STRING);\n", into: temporary.container, .development)
        let server = try Server(store)
        let routes = Dictionary(ManagementAPI.routes.map { ($0.operation, $0) }) { first, _ in first }
        var refusedCount = 0, allowedCount = 0
        for (name, role, containers) in [
            ("vera", OperatorRole.viewer, [ContainerIdentifier]()), ("dev", .developer, []), ("scoped", .developer, [temporary.container]),
        ] {
            let access = try store.addOperator(name, password: "operator password", role: role, containers: containers).access
            let token = try store.createManagementToken(for: name, name: "cli").text
            let environment = ["CUMULUS_MANAGEMENT_TOKEN": token, "CUMULUS_SERVER": server.url]
            let reached = containers.isEmpty ? [temporary.container.rawValue] : [temporary.container.rawValue, Self.other]
            for command in try reached.flatMap(Self.commands) {
                let route = try #require(routes[command.operation])
                let label = "\(name): cumulus \(command.arguments.joined(separator: " "))"
                #expect(
                    ManagementCommands.byOperation[command.operation].map { command.arguments.joined(separator: " ").hasPrefix($0) }
                        == true, "\(label) runs \(command.operation)")
                do {
                    try access.check(route.needs, on: command.target)
                    allowedCount += 1
                    let result = try CumulusBinary.run(command.arguments, input: command.input, environment: environment)
                    #expect(
                        !result.error.contains("ACCESS_DENIED") || !result.error.contains(role == .viewer ? "A viewer" : "A developer"),
                        "\(label): \(result.error)")
                } catch let refusal as CloudStoreError {
                    refusedCount += 1
                    let before = try Self.snapshot(store)
                    let result = try CumulusBinary.run(command.arguments, input: command.input, environment: environment)
                    #expect(result.status != 0, "\(label)")
                    #expect(result.error.contains(refusal.reason), "\(label): \(result.error)")
                    #expect(try Self.snapshot(store) == before, "\(label) changed nothing")
                }
            }
        }
        #expect(refusedCount > 20 && allowedCount > 10, "\(refusedCount) refused, \(allowedCount) allowed")
    }
}
