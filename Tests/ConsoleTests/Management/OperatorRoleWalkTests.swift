import CloudKitWire
import CloudStore
import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Console

/// Every management route and every console page, walked from their tables and tried as a
/// viewer, a developer and a developer limited to one container, over real sockets: what the
/// route declares it needs (``ManagementRoute/needs``, ``ConsolePageSet/needs(_:)``) and the
/// operator's role decide, through the store's one decision, whether it is refused (403, with
/// the decision's reason, and nothing changed) or runs. A route added to a table is walked with
/// no change here.
@Suite struct OperatorRoleWalkTests {
    static let other = "iCloud.com.example.Other"

    /// An operator the walk acts as: their access as the store keeps it, a management token and a
    /// console session.
    struct Caller {
        let name: String
        let access: OperatorAccess
        let token: String
        let cookie: (String, String)
        let csrf: String
    }

    /// A server with the owner `root`, a user `alice` with a private zone `Work`, a `Note` type,
    /// a second container, and the callers: `vera` (viewer), `dev` (developer) and `scoped`
    /// (developer of the first container only).
    static func setUp() throws -> (server: ConsoleTestServer, callers: [Caller]) {
        let server = try ConsoleTestServer()
        let store = server.store
        try store.addOperator("root", password: "operator password")
        try store.createContainer(try ContainerIdentifier(other))
        let alice = try store.addUser(server.container, name: "alice", password: "a long passphrase")
        _ = try store.database(server.container, .development, .private, as: .user(alice.userRecordName))
            .modifyZones([ZoneOperation(.create, zoneName: "Work")])
        try store.importSchema(
            "DEFINE SCHEMA\n RECORD TYPE Note (\"___recordID\" REFERENCE QUERYABLE, title STRING QUERYABLE);\n", into: server.container,
            .development)
        var callers: [Caller] = []
        for (name, role, containers) in [
            ("vera", OperatorRole.viewer, [ContainerIdentifier]()), ("dev", .developer, []), ("scoped", .developer, [server.container]),
        ] {
            let account = try store.addOperator(name, password: "operator password", role: role, containers: containers)
            let token = try store.createManagementToken(for: name, name: "walk").text
            let session = try store.signInOperator(name, password: "operator password", clientAddress: nil)
            callers.append(
                Caller(
                    name: name, access: account.access, token: token, cookie: ("Cookie", "cumulus_console=" + session.secret),
                    csrf: session.session.csrfToken))
        }
        return (server, callers)
    }

    /// What an operator could change, to check that refused requests changed nothing: every
    /// change is audited, and the state itself besides.
    static func snapshot(_ server: ConsoleTestServer) throws -> String {
        let store = server.store
        return [
            "\(try store.auditEntries(AuditFilter(limit: 10_000)).count)", "\(try store.containers().map(\.identifier))",
            "\(try store.operators())", "\(try store.managementTokens().map(\.id))", "\(try store.apiTokens(server.container).count)",
            "\(try store.users(server.container).map(\.name))", try store.exportSchema(server.container, .development),
            try store.exportSchema(server.container, .production),
            "\(try store.usage(of: server.container).mapValues(\.records).sorted { $0.key.rawValue < $1.key.rawValue })",
            "\(try store.limits(of: server.container, .development))",
        ].joined(separator: "|")
    }

    /// One request of the walk: a route's pattern made concrete, and where it acts.
    struct Attempt {
        let method: String
        let path: String
        let target: OperatorTarget
        let needs: OperatorPermission
        let label: String
    }

    /// The concrete requests of `pattern` for `container`: each environment and database it
    /// names, its other parameters filled with names the fixture has.
    static func attempts(method: String, pattern: String, needs: OperatorPermission, container: String, label: String) throws -> [Attempt] {
        let segments = pattern.split(separator: "/", omittingEmptySubsequences: false)
        let names = Set(segments.filter { $0.hasPrefix(":") }.map { String($0.dropFirst()) })
        let environments: [Environment?] = names.contains("environment") ? [.development, .production] : [nil]
        let databases: [DatabaseScope?] = names.contains("database") ? [.public, .private] : [nil]
        return try environments.flatMap { environment in
            try databases.map { database in
                let filled = segments.map { segment -> String in
                    guard segment.hasPrefix(":") || segment.hasPrefix("*") else { return String(segment) }
                    switch segment.dropFirst() {
                    case "container": return container
                    case "environment": return environment!.rawValue
                    case "database": return database!.rawValue
                    case "user", "owner": return "alice"
                    case "operator": return "root"
                    case "zone": return "Work"
                    case "type": return "Note"
                    case "field": return "title"
                    default: return "x"
                    }
                }
                let target = OperatorTarget(
                    container: names.contains("container") ? try ContainerIdentifier(container) : nil, environment: environment,
                    database: database)
                return Attempt(
                    method: method, path: filled.joined(separator: "/") + "?user=alice", target: target, needs: needs,
                    label: "\(label) \(method) \(filled.joined(separator: "/"))")
            }
        }
    }

    static func managementAttempts(container: String) throws -> [Attempt] {
        try ManagementAPI.routes.flatMap { route in
            try attempts(
                method: route.method.rawValue, pattern: "/admin/v1" + route.pattern, needs: route.needs, container: container,
                label: route.operation)
        }
    }

    static func consoleAttempts(_ server: ConsoleTestServer, container: String) throws -> [Attempt] {
        let configuration = ConsoleConfiguration(templatesDirectory: repositoryTemplates, version: "1")
        let console = ConsolePages(
            pages: PageRenderer(templates: try TemplateRenderer(directory: repositoryTemplates), configuration: configuration),
            authenticator: OperatorAuthenticator(store: server.store, cookies: configuration.cookies),
            actions: ManagementActions(store: server.store), configuration: configuration, logger: Logger(label: "test"))
        return try ConsolePageTable.routes(console).flatMap { route -> [Attempt] in
            guard case .page = route.handler else { return [] }
            let needs = try #require(route.needs, "\(route.method) \(route.path) has what it needs")
            return try attempts(
                method: route.method.rawValue, pattern: "/console" + route.path, needs: needs.route, container: container, label: "page")
        }
    }

    /// Sends `attempt` as `caller`: by management token to the API, by session (with its form
    /// token, confirmed) to a page.
    static func send(_ server: ConsoleTestServer, _ attempt: Attempt, as caller: Caller) throws -> TestResponse {
        if attempt.path.hasPrefix("/admin/") {
            return try HTTPTestClient.send(
                port: server.port, method: attempt.method, target: attempt.path, headers: [("Authorization", "Bearer " + caller.token)],
                body: attempt.method == "GET" || attempt.method == "DELETE" ? [] : Array("{}".utf8))
        }
        if attempt.method == "GET" { return try server.get(attempt.path, headers: [caller.cookie]) }
        return try server.post(
            attempt.path, form: [(ConsolePages.csrfField, caller.csrf), ("confirmed", "yes"), ("confirm", server.container.rawValue)],
            headers: [caller.cookie])
    }

    /// The refusal the store's decision gives `caller` for `attempt`, or `nil` when it lets it through.
    static func refusal(_ attempt: Attempt, _ caller: Caller) -> String? {
        do {
            try caller.access.check(attempt.needs, on: attempt.target)
            return nil
        } catch {
            return (error as? CloudStoreError)?.reason ?? "\(error)"
        }
    }

    /// Whether `response` is a refusal by an operator's role (one of `reasons`).
    static func isRoleRefusal(_ response: TestResponse, _ reasons: Set<String>) -> Bool {
        guard response.status == 403 else { return false }
        let text = response.text
        return reasons.contains { text.contains($0) }
    }

    @Test func everyRouteAndPageIsRefusedOrAllowedAsTheRoleSaysAndARefusalChangesNothing() throws {
        let (server, callers) = try Self.setUp()
        let own = server.container.rawValue
        // Each caller in their own container, and the scoped one also in the container they do not reach.
        var walks: [(Caller, Attempt)] = []
        for caller in callers {
            let containers = caller.access.containers.isEmpty ? [own] : [own, Self.other]
            for container in containers {
                let attempts = try Self.managementAttempts(container: container) + Self.consoleAttempts(server, container: container)
                walks += attempts.map { (caller, $0) }
            }
        }
        let refused = walks.compactMap { caller, attempt in Self.refusal(attempt, caller).map { (caller, attempt, $0) } }
        let allowed = walks.filter { Self.refusal($1, $0) == nil }
        #expect(refused.count > 100 && allowed.count > 100, "\(refused.count) refused, \(allowed.count) allowed")
        for kind in ["/admin/", "/console/"] {
            for caller in callers {
                #expect(refused.contains { $0.0.name == caller.name && $0.1.path.hasPrefix(kind) }, "\(caller.name) refused on \(kind)")
                #expect(allowed.contains { $0.0.name == caller.name && $0.1.path.hasPrefix(kind) }, "\(caller.name) allowed on \(kind)")
            }
        }
        // The scoped developer reaches nothing of the other container.
        #expect(!allowed.contains { $0.0.name == "scoped" && $0.1.target.container?.rawValue == Self.other })

        let before = try Self.snapshot(server)
        for (caller, attempt, reason) in refused {
            let response = try Self.send(server, attempt, as: caller)
            #expect(response.status == 403, "\(caller.name): \(attempt.label)")
            if attempt.path.hasPrefix("/admin/") {
                let body = try response.json()
                #expect(body["serverErrorCode"]?.stringValue == "ACCESS_DENIED", "\(caller.name): \(attempt.label)")
                #expect(body["reason"]?.stringValue == reason, "\(caller.name): \(attempt.label)")
            } else {
                #expect(response.text.contains(reason), "\(caller.name): \(attempt.label) shows why")
                #expect(response.text.contains("href=\"/console/containers\""), "the refusal stays in the console")
            }
        }
        #expect(try Self.snapshot(server) == before, "the refused requests changed nothing")

        let reasons = Set(refused.map(\.2))
        for (caller, attempt) in allowed where !attempt.path.contains("/logs/tail") {
            let response = try Self.send(server, attempt, as: caller)
            #expect(!Self.isRoleRefusal(response, reasons), "\(caller.name): \(attempt.label) is allowed")
            #expect(response.status < 500, "\(caller.name): \(attempt.label)")
        }
    }

    /// Whether the page's main part is marked read-only, which hides its forms that post.
    static func isReadOnly(_ page: TestResponse) -> Bool { page.text.contains("class=\"content wide read-only\"") }

    @Test func theConsoleOffersOnlyWhatTheOperatorMayDo() throws {
        let (server, callers) = try Self.setUp()
        let vera = try #require(callers.first { $0.name == "vera" })
        let dev = try #require(callers.first { $0.name == "dev" })
        let c = server.container.rawValue

        let schema = try server.get("/console/containers/\(c)/development/schema", headers: [vera.cookie])
        #expect(schema.status == 200)
        #expect(Self.isReadOnly(schema), "a viewer's page offers no form that posts")
        #expect(!schema.text.contains("href=\"/console/operators\""))
        #expect(!schema.text.contains("href=\"/console/management-tokens\""))
        for hidden in ["/users", "/tokens", "/keys", "/sharing", "/reset", "/private/records"] {
            #expect(!schema.text.contains("href=\"/console/containers/\(c)/development\(hidden)"), "no tab to \(hidden)")
        }
        for shown in ["/schema", "/logs", "/usage", "/public/records"] {
            #expect(schema.text.contains("href=\"/console/containers/\(c)/development\(shown)"), "a tab to \(shown)")
        }

        let development = try server.get("/console/containers/\(c)/development/schema", headers: [dev.cookie])
        #expect(!Self.isReadOnly(development), "a developer changes development")
        #expect(development.text.contains("href=\"/console/containers/\(c)/development/users\""))
        #expect(!development.text.contains("href=\"/console/operators\""))
        let production = try server.get("/console/containers/\(c)/production/schema", headers: [dev.cookie])
        #expect(Self.isReadOnly(production), "production is read-only to a developer")
        let users = try server.get("/console/containers/\(c)/development/users", headers: [dev.cookie])
        #expect(Self.isReadOnly(users), "the container's users reach production")
    }
}
