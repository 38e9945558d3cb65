import CloudStore
import Foundation
import HTTPServer
import Logging
import TestSupport
import Testing

@testable import Console
@testable import cumulus

/// The command line against a running server, as a viewer, a developer and a developer limited
/// to one container: every operation of ``ManagementCommands/byOperation`` is run as its command,
/// and each runs its management route, so the store's decision refuses it (a failed command
/// saying why, nothing changed) or lets it run, as the route declares.
@Suite struct OperatorRoleCommandsTests {
    static let other = "iCloud.com.example.Other"

    /// Operations whose command never calls the server: `operators token|tokens|revoke-token`
    /// work on a data directory here (they take no `--server`, and make a token for any
    /// operator, which the route does for its caller only), so there is no route to refuse them.
    /// The test checks they still refuse `--server`: once they call the server, they get samples.
    static let notThroughTheServer: Set<String> = ["managementTokens", "createManagementToken", "revokeManagementToken"]

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

    /// What one role's walk runs against: a store with two containers, users, a schema, a
    /// backup, an API token and a logged call, served on a port, and the files commands read.
    final class Place {
        let temporary: TemporaryStore
        let server: Server
        let files: TemporaryDirectory
        let backup: String
        let apiToken: String
        let loggedCall = "walk-call"
        var store: CloudStore { temporary.store }

        init() throws {
            temporary = try TemporaryStore { $0.backups = BackupSchedule(location: .directory($0.dataDirectory + "/backups")) }
            let (store, container) = (temporary.store, temporary.container)
            try store.createContainer(try ContainerIdentifier(OperatorRoleCommandsTests.other))
            try store.addOperator("root", password: "operator password")
            let alice = try store.addUser(container, name: "alice", password: "a long passphrase")
            try store.addUser(container, name: "bob", password: "a long passphrase")
            try store.importSchema(
                """
                DEFINE SCHEMA
                    CREATE ROLE Moderator;
                    RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, extra STRING, picture ASSET, GRANT READ TO "_world");
                    RECORD TYPE Gone (x STRING);
                """, into: container, .development)
            apiToken = try store.createAPIToken(container, .development).token
            store.requestLog.record(
                Self.call(container, requestID: loggedCall, user: alice.userRecordName, time: store.configuration.clock()))
            try store.requestLog.flush()
            backup = try store.takeBackup().name
            server = try Server(store)
            files = try TemporaryDirectory(prefix: "operator-walk")
            try files.file("schema.ckdb", "DEFINE SCHEMA\n    RECORD TYPE Imported (name STRING);\n")
            try files.file("key.pem", "-----BEGIN PUBLIC KEY-----\nnot a key\n-----END PUBLIC KEY-----\n")
            try files.file("asset.bin", "asset bytes")
        }

        /// A call of the data API as the request log keeps it.
        static func call(_ container: ContainerIdentifier, requestID: String, user: String?, time: Int64) -> RequestLogEntry {
            RequestLogEntry(
                time: time, container: container.rawValue, environment: "development", database: "public", operation: "records/query",
                user: user, clientAddress: "192.0.2.7", status: 200, serverErrorCode: nil, durationMicroseconds: 5, bytesIn: 1,
                bytesOut: 2, requestID: requestID)
        }

        /// What could change: every change is audited; operators, containers, credentials,
        /// backups, users, schemas, limits, retention and what each environment holds besides.
        /// (Not when a management token was last used: each command's use notes it.)
        func snapshot() throws -> [String] {
            var parts = [
                "audit \(try store.auditEntries(AuditFilter(limit: 10_000)).count)", "operators \(try store.operators())",
                "containers \(try store.containers().map(\.identifier))",
                "management tokens \(try store.managementTokens().map { [$0.id, $0.operatorName, $0.name] })",
                "backups \(try store.backups().map(\.name))",
            ]
            for container in [temporary.container, try ContainerIdentifier(OperatorRoleCommandsTests.other)] {
                parts += [
                    "users \(try store.users(container))", "API tokens \(try store.apiTokens(container))",
                    "server keys \(try store.serverKeys(container))",
                    "usage \(try store.usage(of: container).sorted { $0.key.rawValue < $1.key.rawValue })",
                ]
                for environment in [Environment.development, .production] {
                    parts += [
                        "schema \(try store.exportSchema(container, environment))",
                        "limits \(try store.limits(of: container, environment))",
                        "retention \(try store.historyRetention(container, environment))",
                    ]
                }
            }
            return parts
        }
    }

    /// One command line that runs `operation`, and where.
    struct Sample {
        let operation: String
        let arguments: [String]
        let target: OperatorTarget
        /// Standard input: a password, a body.
        var input: String? = nil
        /// The routes the command calls in order, when not `operation`'s alone: the first that refuses decides.
        var calls: [(operation: String, target: OperatorTarget)]? = nil
        /// Whether it follows a stream until calls arrive (`logs tail`): calls are logged while it runs.
        var follows = false

        var routes: [(operation: String, target: OperatorTarget)] { calls ?? [(operation, target)] }
    }

    /// A command line for each operation of the table in `container`, in an order where what an
    /// allowed command deletes (a user, a record type, development's contents) comes last.
    static func samples(_ container: String, _ place: Place) throws -> [Sample] {
        let c = try ContainerIdentifier(container)
        let dev = ["--container", container, "--environment", "development"]
        let prod = ["--container", container, "--environment", "production"]
        let inContainer = ["--container", container]
        let (all, one) = (OperatorTarget(), OperatorTarget(container: c))
        func env(_ environment: Environment = .development) -> OperatorTarget { OperatorTarget(container: c, environment: environment) }
        func db(_ database: DatabaseScope = .public, _ environment: Environment = .development) -> OperatorTarget {
            OperatorTarget(container: c, environment: environment, database: database)
        }
        let alice = ["--database", "private", "--user", "alice"]
        let password = "a long passphrase\n"
        let note =
            #"{"operations":[{"operationType":"create","record":{"recordType":"Note","recordName":"n2","fields":{"title":{"value":"x"}}}}]}"#
        let file = { (name: String) in place.files.path + "/" + name }
        return [
            // Containers, credentials, operators, backups
            Sample(operation: "containers", arguments: ["containers", "list"], target: all),
            Sample(operation: "container", arguments: ["containers", "show", container], target: one),
            Sample(operation: "createContainer", arguments: ["containers", "create", "iCloud.com.example.New"], target: all),
            Sample(operation: "apiTokens", arguments: ["tokens", "list"] + inContainer, target: one),
            Sample(operation: "createAPIToken", arguments: ["tokens", "create"] + dev, target: one),
            Sample(operation: "revokeAPIToken", arguments: ["tokens", "revoke", place.apiToken], target: all),
            Sample(operation: "serverKeys", arguments: ["keys", "list"] + inContainer, target: one),
            Sample(operation: "addServerKey", arguments: ["keys", "add"] + dev + ["--public-key", file("key.pem")], target: one),
            Sample(operation: "revokeServerKey", arguments: ["keys", "revoke", "no-such-key"], target: all),
            Sample(operation: "operators", arguments: ["operators", "list"], target: all),
            Sample(operation: "addOperator", arguments: ["operators", "add", "mallory", "--role", "owner"], target: all, input: password),
            Sample(operation: "setOperatorRole", arguments: ["operators", "set-role", "root", "--role", "viewer"], target: all),
            Sample(operation: "removeOperator", arguments: ["operators", "remove", "root"], target: all),
            Sample(operation: "backups", arguments: ["backups", "list"], target: all),
            Sample(operation: "takeBackup", arguments: ["backups", "take"], target: all),
            Sample(
                operation: "downloadBackup", arguments: ["backups", "download", place.backup, "--to", file("download.tar")], target: all),
            Sample(operation: "deleteBackup", arguments: ["backups", "delete", place.backup], target: all),
            Sample(
                operation: "restoreFromBackup", arguments: ["restore-point"] + dev + ["--zone", "_defaultZone", "--backup", place.backup],
                target: db()),
            // Users
            Sample(operation: "users", arguments: ["users", "list"] + inContainer, target: one),
            Sample(operation: "addUser", arguments: ["users", "add"] + inContainer + ["zed"], target: one, input: password),
            Sample(operation: "setUserPassword", arguments: ["users", "password"] + inContainer + ["alice"], target: one, input: password),
            Sample(operation: "setUserDiscoverable", arguments: ["users", "discoverable"] + inContainer + ["alice"], target: one),
            Sample(operation: "signOutUser", arguments: ["users", "sign-out"] + inContainer + ["alice"], target: one),
            Sample(
                operation: "exportUser", arguments: ["users", "export"] + inContainer + ["alice", "--to", file("alice.tar")], target: one),
            Sample(operation: "eraseUser", arguments: ["users", "erase"] + inContainer + ["alice", "--dry-run"], target: one),
            // It finds the user first.
            Sample(
                operation: "setUserRoles", arguments: ["users", "roles"] + dev + ["alice", "--add", "Moderator"], target: env(),
                calls: [("users", one), ("setUserRoles", env())]),
            Sample(
                operation: "setUserRoles", arguments: ["users", "roles"] + prod + ["alice", "--add", "Moderator"], target: env(.production),
                calls: [("users", one), ("setUserRoles", env(.production))]),
            // Schema and deploys; deploy reads what would change first (development differs from production)
            Sample(operation: "schema", arguments: ["export-schema"] + prod, target: env(.production)),
            Sample(operation: "validateSchema", arguments: ["validate-schema"] + dev + ["--file", file("schema.ckdb")], target: env()),
            Sample(operation: "importSchema", arguments: ["import-schema"] + dev + ["--file", file("schema.ckdb")], target: env()),
            Sample(
                operation: "importSchema", arguments: ["import-schema"] + prod + ["--file", file("schema.ckdb")], target: env(.production)),
            Sample(operation: "createRecordType", arguments: ["record-types", "create", "Fresh"] + dev, target: env()),
            Sample(operation: "createRecordType", arguments: ["record-types", "create", "Fresh"] + prod, target: env(.production)),
            Sample(operation: "addField", arguments: ["record-types", "add-field"] + dev + ["Note", "body", "STRING"], target: env()),
            Sample(
                operation: "setIndexes", arguments: ["record-types", "indexes"] + dev + ["Note", "title", "--index", "SORTABLE"],
                target: env()),
            Sample(
                operation: "setTypeIndexes", arguments: ["record-types", "indexes"] + dev + ["Note", "--set", "extra=QUERYABLE"],
                target: env()),
            Sample(operation: "schemaDeletionImpact", arguments: ["delete-schema"] + dev + ["--record-type", "Note"], target: env()),
            Sample(
                operation: "schemaDifference", arguments: ["deploy", "--container", container, "--dry-run"], target: one,
                calls: [("schemaGuard", one), ("schemaDifference", one)]),
            Sample(
                operation: "schemaGuard", arguments: ["deploy", "--container", container, "--dry-run", "--only-refused"], target: one,
                calls: [("schemaGuard", one)]),
            Sample(
                operation: "deploySchema", arguments: ["deploy", "--container", container], target: one,
                calls: [("schemaGuard", one), ("schemaDifference", one), ("deploySchema", one)]),
            Sample(operation: "schemaDeployments", arguments: ["deployments", "--container", container], target: one),
            Sample(operation: "developmentContents", arguments: ["reset", "--container", container, "--dry-run"], target: one),
            Sample(operation: "auditTrail", arguments: ["audit"], target: all),
            Sample(operation: "exportAuditTrail", arguments: ["audit", "--reads", "--export"], target: all),
            Sample(operation: "signInAttacks", arguments: ["sign-in-attacks"], target: all),
            // Security
            Sample(operation: "security", arguments: ["security", "show"] + dev, target: env()),
            Sample(operation: "setGrants", arguments: ["security", "grants"] + dev + ["Note", "--grant", "_world=READ"], target: env()),
            Sample(
                operation: "setGrants", arguments: ["security", "grants"] + prod + ["Note", "--grant", "_world=READ"],
                target: env(.production)),
            Sample(operation: "createRole", arguments: ["security", "create-role"] + dev + ["Editor"], target: env()),
            Sample(operation: "deleteRole", arguments: ["security", "delete-role"] + dev + ["Editor"], target: env()),
            Sample(
                operation: "simulateAccess",
                arguments: ["security", "simulate"] + dev + ["--subject", "_world", "--permission", "create", "--record-type", "Note"],
                target: env()),
            // Zones and records, in the public database and a user's
            Sample(operation: "zones", arguments: ["zones", "list", "--database", "public"] + dev, target: db()),
            Sample(operation: "zones", arguments: ["zones", "list"] + alice + dev, target: db(.private)),
            Sample(operation: "createZone", arguments: ["zones", "create"] + alice + dev + ["Trips"], target: db(.private)),
            Sample(operation: "createZone", arguments: ["zones", "create"] + alice + prod + ["Trips"], target: db(.private, .production)),
            Sample(operation: "queryRecords", arguments: ["records", "query"] + dev + ["--record-type", "Note"], target: db()),
            Sample(
                operation: "queryRecords", arguments: ["records", "query"] + alice + dev + ["--record-type", "Note"], target: db(.private)),
            Sample(operation: "browseRecords", arguments: ["records", "browse"] + dev + ["--record-type", "Note"], target: db()),
            Sample(operation: "lookupRecords", arguments: ["records", "lookup"] + dev + ["n1"], target: db()),
            Sample(operation: "exportRecords", arguments: ["records", "export"] + dev + ["--record-type", "Note"], target: db()),
            Sample(
                operation: "exportRecords", arguments: ["records", "export"] + alice + dev + ["--record-type", "Note"], target: db(.private)
            ),
            Sample(operation: "modifyRecords", arguments: ["records", "modify"] + dev + ["--file", "-"], target: db(), input: note),
            Sample(
                operation: "modifyRecords", arguments: ["records", "modify"] + prod + ["--file", "-"], target: db(.public, .production),
                input: note),
            Sample(
                operation: "uploadAsset",
                arguments: ["records", "upload-asset"] + dev + [
                    "--record-type", "Note", "--field", "picture", "--file", file("asset.bin"),
                ],
                target: db()),
            Sample(operation: "changeLog", arguments: ["changes"] + dev, target: db()),
            Sample(operation: "changeLog", arguments: ["changes"] + alice + dev, target: db(.private)),
            Sample(operation: "nextChanges", arguments: ["changes"] + dev + ["--sync-token", ""], target: db()),
            // Trash and history
            Sample(operation: "trash", arguments: ["trash", "list"] + dev, target: db()),
            Sample(operation: "trash", arguments: ["trash", "list"] + alice + dev, target: db(.private)),
            Sample(operation: "restoreTrash", arguments: ["trash", "restore"] + dev, target: db()),
            Sample(operation: "recordHistory", arguments: ["history", "show"] + dev + ["--record", "n2"], target: db()),
            Sample(
                operation: "revertRecord", arguments: ["history", "revert"] + dev + ["--record", "n2", "--version", "1"], target: db()),
            Sample(
                operation: "restorePoint", arguments: ["restore-point"] + dev + ["--zone", "_defaultZone", "--at", "2023-11-14T00:00:00Z"],
                target: db()),
            Sample(
                operation: "restorePoint",
                arguments: ["restore-point"] + prod + ["--zone", "_defaultZone", "--at", "2023-11-14T00:00:00Z"],
                target: db(.public, .production)),
            Sample(operation: "historyRetention", arguments: ["history", "retention"] + dev, target: env()),
            Sample(operation: "setHistoryRetention", arguments: ["history", "retention"] + dev + ["--set", "90d"], target: env()),
            Sample(
                operation: "setHistoryRetention", arguments: ["history", "retention"] + prod + ["--set", "90d"], target: env(.production)),
            // Limits and usage: the command reads an environment's limits with its usage, through the usage route
            Sample(operation: "limits", arguments: ["limits"] + dev, target: env(), calls: [("usage", env())]),
            Sample(operation: "usage", arguments: ["limits"] + dev, target: env()),
            Sample(
                operation: "setLimits", arguments: ["limits"] + dev + ["--burst", "50"], target: env(),
                calls: [("setLimits", env()), ("usage", env())]),
            Sample(
                operation: "setLimits", arguments: ["limits"] + prod + ["--burst", "50"], target: env(.production),
                calls: [("setLimits", env(.production)), ("usage", env(.production))]),
            Sample(operation: "usageSummary", arguments: ["usage"] + dev, target: env()),
            // The request log
            Sample(operation: "requestLog", arguments: ["logs", "list"] + inContainer, target: one),
            Sample(operation: "exportRequestLog", arguments: ["logs", "export"] + inContainer, target: one),
            Sample(operation: "requestLogEntry", arguments: ["logs", "show"] + inContainer + [place.loggedCall], target: one),
            Sample(operation: "tailRequestLog", arguments: ["logs", "tail"] + inContainer + ["--count", "1"], target: one, follows: true),
            // Sync: the notifications command reads the queues through the queued notifications route
            Sample(operation: "subscriptions", arguments: ["subscriptions", "list"] + dev, target: env()),
            Sample(
                operation: "deleteSubscription",
                arguments: ["subscriptions", "delete"] + dev + ["--database", "private", "--owner", "alice", "--user", "alice", "s1"],
                target: db(.private)),
            Sample(operation: "shares", arguments: ["shares", "list"] + dev, target: env()),
            Sample(
                operation: "deleteShare", arguments: ["shares", "delete"] + dev + ["--owner", "alice", "--zone", "Trips", "s1"],
                target: env()),
            Sample(
                operation: "removeShareParticipant",
                arguments: ["shares", "remove-participant"] + dev + ["--owner", "alice", "--zone", "Trips", "s1", "--user", "bob"],
                target: env()),
            Sample(
                operation: "leaveSharedZone",
                arguments: ["shares", "leave"] + dev + ["--user", "bob", "--owner", "alice", "--zone", "Trips"],
                target: env()),
            Sample(operation: "pushTokens", arguments: ["push-tokens", "list"] + dev, target: env()),
            Sample(operation: "revokePushToken", arguments: ["push-tokens", "revoke"] + dev + ["1"], target: env()),
            Sample(
                operation: "notificationQueues", arguments: ["notifications"] + dev, target: env(), calls: [("queuedNotifications", env())]),
            Sample(operation: "queuedNotifications", arguments: ["notifications"] + dev, target: env()),
            // Seeds, personal fields and masked copies
            Sample(operation: "seeds", arguments: ["seeds", "list"] + inContainer, target: one),
            Sample(operation: "saveSeed", arguments: ["seeds", "save"] + inContainer + ["--type", "Note", "walk"], target: one),
            Sample(operation: "personalFields", arguments: ["personal-fields", "list"] + inContainer, target: one),
            Sample(
                operation: "setPersonalField",
                arguments: ["personal-fields", "set"] + inContainer + ["--type", "Note", "--field", "title"],
                target: one),
            Sample(operation: "copyToDevelopment", arguments: ["copy-to-development"] + inContainer + ["--type", "Note"], target: one),
            Sample(operation: "deleteSeed", arguments: ["seeds", "delete"] + inContainer + ["walk"], target: one),
            Sample(operation: "traceDelivery", arguments: ["notifications", "trace"] + dev + ["--record", "n2"], target: db()),
            // Last, what deletes what others use
            Sample(operation: "deleteZone", arguments: ["zones", "delete"] + alice + dev + ["Trips"], target: db(.private)),
            Sample(
                operation: "deleteField", arguments: ["delete-schema"] + dev + ["--record-type", "Note", "--field", "extra", "--yes"],
                target: env()),
            Sample(operation: "deleteRecordType", arguments: ["delete-schema"] + dev + ["--record-type", "Gone", "--yes"], target: env()),
            Sample(
                operation: "deleteRecordType", arguments: ["delete-schema"] + prod + ["--record-type", "Gone", "--yes"],
                target: env(.production)),
            Sample(operation: "removeUser", arguments: ["users", "remove"] + inContainer + ["bob"], target: one),
            Sample(operation: "resetDevelopment", arguments: ["reset", "--container", container], target: one),
        ]
    }

    /// The first refusal of the routes `sample` calls, as the store decides for `access`.
    static func refusal(_ access: OperatorAccess, _ sample: Sample, _ needs: [String: OperatorPermission]) throws -> CloudStoreError? {
        for (operation, target) in sample.routes {
            do {
                try access.check(try #require(needs[operation], "\(operation) is a route"), on: target)
            } catch let refusal as CloudStoreError {
                return refusal
            }
        }
        return nil
    }

    @Test func everyOperationsCommandIsRefusedOrRunsAsTheOperatorsRoleSays() throws {
        // What each operation needs, the same on each of its routes.
        var needs: [String: OperatorPermission] = [:]
        for route in ManagementAPI.routes {
            #expect(needs[route.operation].map { $0 == route.needs } ?? true, "\(route.operation) needs one thing")
            needs[route.operation] = route.needs
        }
        let table = ManagementCommands.byOperation
        #expect(Self.notThroughTheServer.isSubset(of: table.keys), "the exclusions name operations of the table")

        let roles: [(String, OperatorRole, scoped: Bool)] = [
            ("vera", .viewer, false), ("dev", .developer, false), ("scoped", .developer, true),
        ]
        var refusedCount = 0, allowedCount = 0
        for (name, role, scoped) in roles {
            // Each role walks a place of its own: what an allowed command changed is not there for the next.
            let place = try Place()
            let main = place.temporary.container
            let access = try place.store.addOperator(name, password: "operator password", role: role, containers: scoped ? [main] : [])
                .access
            let token = try place.store.createManagementToken(for: name, name: "cli").text
            let environment = ["CUMULUS_MANAGEMENT_TOKEN": token, "CUMULUS_SERVER": place.server.url]
            var samples = try Self.samples(main.rawValue, place)
            if scoped { samples += try Self.samples(Self.other, place) }
            if name == roles[0].0 {
                let sampled = Set(samples.map(\.operation))
                #expect(
                    Set(table.keys).subtracting(sampled).subtracting(Self.notThroughTheServer).sorted() == [],
                    "operations of ManagementCommands.byOperation without a sample here: add one")
                #expect(sampled.isDisjoint(with: Self.notThroughTheServer) && sampled.isSubset(of: table.keys))
            }
            // Every reason a route of this walk could be refused with, which an allowed command must not print.
            let reasons = Set(
                samples.flatMap(\.routes).flatMap { operation, target in
                    roles.compactMap { _, role, scoped in
                        try? Self.refusal(
                            OperatorAccess(role: role, containers: scoped ? [main] : []),
                            Sample(operation: operation, arguments: [], target: target),
                            needs)?.reason
                    }
                })
            var ran: Set<[String]> = []
            for sample in samples where ran.insert(sample.arguments).inserted {
                let label = "\(name): cumulus \(sample.arguments.joined(separator: " "))"
                #expect(
                    table[sample.operation].map { sample.arguments.joined(separator: " ").hasPrefix($0) } == true,
                    "\(label) runs \(sample.operation)")
                let refusal = try Self.refusal(access, sample, needs)
                let before = refusal == nil ? [] : try place.snapshot()
                var calls = 0
                let result = try CumulusBinary.run(
                    sample.arguments, input: sample.input, environment: environment,
                    meanwhile: sample.follows
                        ? {
                            calls += 1
                            place.store.requestLog.record(
                                Place.call(main, requestID: "tail-\(calls)", user: nil, time: place.store.configuration.clock()))
                            try place.store.requestLog.flush()
                        } : nil)
                if let refusal {
                    refusedCount += 1
                    #expect(result.status != 0, "\(label)")
                    #expect(result.error.contains(refusal.reason), "\(label): \(result.error)")
                    #expect(try place.snapshot() == before, "\(label) changed nothing")
                } else {
                    allowedCount += 1
                    #expect(!reasons.contains { result.error.contains($0) }, "\(label): \(result.error)")
                    if sample.follows { #expect(result.status == 0, "\(label) stopped after the call it was sent: \(result.error)") }
                }
            }
        }
        #expect(refusedCount > 150 && allowedCount > 80, "\(refusedCount) refused, \(allowedCount) allowed")
    }

    @Test func theExcludedCommandsStillWorkOnADataDirectoryOnly() throws {
        for operation in Self.notThroughTheServer.sorted() {
            let command = try #require(ManagementCommands.byOperation[operation]).split(separator: " ").map(String.init)
            let result = try CumulusBinary.run(command + ["--server", "http://127.0.0.1:9"])
            #expect(
                result.status != 0 && result.error.contains("--server"),
                "cumulus \(command.joined(separator: " ")) takes --server now: give \(operation) samples and take it out of the exclusions")
            // With CUMULUS_SERVER set and no store named, refused too, rather than acting on ./data.
            let directory = try TemporaryDirectory()
            let arguments = command + (command.last == "token" ? ["root"] : command.last == "revoke-token" ? ["ID"] : [])
            let meant = try CumulusBinary.run(
                arguments, environment: ["CUMULUS_SERVER": "http://127.0.0.1:9", "CUMULUS_DATA_DIR": ""], directory: directory.path)
            #expect(meant.status != 0 && meant.error.contains("CUMULUS_SERVER is set"), "\(arguments): \(meant.error)")
            #expect(!FileManager.default.fileExists(atPath: directory.path + "/data"), "no store made in ./data")
        }
    }
}
