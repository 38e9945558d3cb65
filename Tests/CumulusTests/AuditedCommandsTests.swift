import CloudStore
import Foundation
import TestSupport
import Testing

/// Every command that changes something is audited by the store: those that call the
/// management API, and the local ones (operators, the server secret) as the local command line.
@Suite struct AuditedCommandsTests {
    /// The commands that change state, by the source file that holds them.
    static let changing: [String: [String]] = [
        "ContainersCommand.swift": ["containers create"],
        "TokensCommand.swift": ["tokens create", "tokens revoke"],
        "KeysCommand.swift": ["keys add", "keys revoke"],
        "OperatorsCommand.swift": [
            "operators add", "operators set-role", "operators password", "operators token", "operators revoke-token", "operators remove",
        ],
        "SecretCommand.swift": ["secret rotate"],
        "LimitsCommand.swift": ["limits"],
        "UsersCommand.swift": [
            "users add", "users password", "users discoverable", "users sign-out", "users roles", "users erase", "users remove",
        ],
        "SchemaCommands.swift": ["import-schema", "delete-schema"],
        "SyncCommands.swift": ["subscriptions delete", "push-tokens revoke"],
        "SharesCommand.swift": ["shares remove-participant", "shares delete", "shares leave"],
        "LifecycleCommands.swift": ["deploy", "reset"],
        "ZonesCommand.swift": ["zones create", "zones delete"],
        "RecordsCommand.swift": ["records modify", "records upload-asset"],
        "RecordTypesCommand.swift": ["record-types create", "record-types add-field", "record-types indexes"],
        "SecurityCommand.swift": ["security grants", "security create-role", "security delete-role"],
        "BackupsCommand.swift": ["backups take", "backups delete"],
        "HistoryCommands.swift": ["trash restore", "history revert", "restore-point", "history retention"],
        "SeedsCommands.swift": ["seeds save", "seeds delete", "personal-fields set", "copy-to-development"],
    ]

    /// Requests that change nothing although sent as POST or PUT: dry runs (validate-schema,
    /// import-schema --dry-run), and reads with a body (records query, lookup and export;
    /// security simulate).
    static let dryRuns: [String: Int] = ["SchemaCommands.swift": 2, "RecordsCommand.swift": 3, "SecurityCommand.swift": 1]

    /// Each file's calls that can change state (a management request other than GET, or an
    /// action run on the data directory) are as many as its commands listed above: a new one
    /// must be listed, and so walked below.
    @Test func everyChangingCallIsAListedCommand() throws {
        let folder = Repository.root + "/Sources/cumulus/Commands"
        let change = /actions\(\)\.|\.(post|put|delete),/
        var found: [String: Int] = [:]
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) {
            let count = try String(contentsOfFile: folder + "/" + file, encoding: .utf8).matches(of: change).count
            if count > 0 { found[file] = count }
        }
        let expected = Self.changing.mapValues(\.count).merging(Self.dryRuns, uniquingKeysWith: +)
        #expect(found == expected)
    }

    /// Each changing command, run once, leaves exactly one new audit entry by the local command
    /// line; on SQLite and on PostgreSQL.
    @Test func everyChangingCommandWritesExactlyOneAuditEntry() throws {
        let fixture = try AdminFixture()
        let store = fixture.store
        let c = fixture.container
        try store.createRole("editor", in: fixture.fixture.container, .development)
        let schemaFile = fixture.fixture.directory + "/schema.ckdb"
        try AdminFixture.schema.write(toFile: schemaFile, atomically: true, encoding: .utf8)
        let publicKey = fixture.fixture.directory + "/key.pem"
        try KeyFixtures.p256.write(toFile: publicKey, atomically: true, encoding: .utf8)
        let environment = fixture.fixture.postgresDatabase.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
        let place = ["--container", c, "--environment", "development"]

        let steps: [(command: String, action: String, arguments: () throws -> [String], input: String?)] = [
            ("containers create", "container.create", { ["containers", "create", "iCloud.com.example.Second"] }, nil),
            ("tokens create", "token.create", { ["tokens", "create"] + place }, nil),
            ("tokens revoke", "token.revoke", { ["tokens", "revoke", try store.apiTokens(fixture.fixture.container)[0].token] }, nil),
            ("keys add", "key.add", { ["keys", "add", "--public-key", publicKey] + place }, nil),
            ("keys revoke", "key.revoke", { ["keys", "revoke", try store.serverKeys(fixture.fixture.container)[0].keyID] }, nil),
            ("operators add", "operator.add", { ["operators", "add", "temp"] }, "operator password\n"),
            ("operators set-role", "operator.role", { ["operators", "set-role", "temp", "--role", "viewer", "--container", c] }, nil),
            ("operators password", "operator.password", { ["operators", "password", "temp"] }, "another password\n"),
            ("operators token", "management-token.create", { ["operators", "token", "temp"] }, nil),
            (
                "operators revoke-token", "management-token.revoke", { ["operators", "revoke-token", try store.managementTokens()[0].id] },
                nil
            ),
            ("operators remove", "operator.remove", { ["operators", "remove", "temp"] }, nil),
            ("secret rotate", "secret.rotate", { ["secret", "rotate"] }, nil),
            ("limits", "limits.set", { ["limits", "--burst", "50"] + place }, nil),
            ("users add", "user.add", { ["users", "add", "--container", c, "carol"] }, "a long passphrase\n"),
            ("users password", "user.password", { ["users", "password", "--container", c, "carol"] }, "another passphrase\n"),
            ("users discoverable", "user.discoverable", { ["users", "discoverable", "--container", c, "carol"] }, nil),
            ("users sign-out", "user.sign-out", { ["users", "sign-out", "--container", c, "carol"] }, nil),
            ("users roles", "security.user-roles", { ["users", "roles", "alice", "--add", "editor"] + place }, nil),
            ("users erase", "user.erase", { ["users", "erase", "--container", c, "carol", "--environment", "development"] }, nil),
            ("users remove", "user.remove", { ["users", "remove", "--container", c, "carol"] }, nil),
            ("import-schema", "schema.import", { ["import-schema", "--file", schemaFile] + place }, nil),
            (
                "delete-schema", "schema.field.delete",
                {
                    // The field to delete, added without an audit entry of its own.
                    try store.addField(
                        FieldDefinition(name: "scratch", type: .string), to: "Note", in: fixture.fixture.container, .development)
                    return ["delete-schema", "--record-type", "Note", "--field", "scratch", "--yes"] + place
                }, nil
            ),
            ("subscriptions delete", "subscription.delete", { ["subscriptions", "delete", "--user", "alice", "notes"] + place }, nil),
            ("push-tokens revoke", "pushToken.revoke", { ["push-tokens", "revoke", fixture.pushTokenID] + place }, nil),
            (
                "shares remove-participant", "share.participant.remove",
                {
                    ["shares", "remove-participant", "--owner", "alice", "--zone", "Work", "share-trip", "--user", "bob"] + place
                }, nil
            ),
            ("shares delete", "share.delete", { ["shares", "delete", "--owner", "alice", "--zone", "Work", "share-trip"] + place }, nil),
            (
                "shares leave", "share.leave",
                {
                    // Alice shares another record with bob, who accepts, as users do (unaudited); then he leaves.
                    try fixture.shareWithBob("trip-2")
                    return ["shares", "leave", "--owner", "alice", "--zone", "Work", "--user", "bob"] + place
                }, nil
            ),
            ("zones create", "zone.create", { ["zones", "create", "--database", "private", "--user", "alice", "Scratch"] + place }, nil),
            ("zones delete", "zone.delete", { ["zones", "delete", "--database", "private", "--user", "alice", "Scratch"] + place }, nil),
            (
                "records modify", "record.create",
                {
                    let body = fixture.fixture.directory + "/modify.json"
                    try #"{"operations":[{"operationType":"create","record":{"recordName":"from-cli","recordType":"Note"}}]}"#
                        .write(toFile: body, atomically: true, encoding: .utf8)
                    return ["records", "modify", "--file", body] + place
                }, nil
            ),
            (
                "records upload-asset", "record.asset.upload",
                {
                    let file = fixture.fixture.directory + "/photo.png"
                    try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: file))
                    return ["records", "upload-asset", "--record-type", "Photo", "--field", "image", "--file", file] + place
                }, nil
            ),
            ("record-types create", "schema.record-type.create", { ["record-types", "create", "Trip"] + place }, nil),
            ("record-types add-field", "schema.field.add", { ["record-types", "add-field", "Trip", "place", "STRING"] + place }, nil),
            (
                "record-types indexes", "schema.indexes.set",
                { ["record-types", "indexes", "Trip", "place", "--index", "QUERYABLE"] + place },
                nil
            ),
            ("security grants", "security.grants", { ["security", "grants", "Trip", "--grant", "_world=READ"] + place }, nil),
            ("security create-role", "security.role.create", { ["security", "create-role", "Planner"] + place }, nil),
            ("security delete-role", "security.role.delete", { ["security", "delete-role", "Planner"] + place }, nil),
            (
                "trash restore", "trash.restore",
                { ["trash", "restore", "--database", "private", "--user", "alice", "--zone", "Scratch"] + place }, nil
            ),
            (
                "history revert", "history.revert",
                {
                    // A version to go back to, made without an audit entry of its own.
                    _ = try fixture.fixture.database().modify(
                        ModifyRequest(operations: [
                            RecordOperation(.forceUpdate, recordName: "from-cli", recordType: "Note", fields: ["title": .string("changed")])
                        ]))
                    let version = try store.history(
                        ofRecord: "from-cli", zoneName: ZoneID.defaultZoneName, in: .public, fixture.fixture.container, .development,
                        by: .local
                    ).entries[0].version.id
                    return ["history", "revert", "--record", "from-cli", "--version", String(version)] + place
                }, nil
            ),
            ("restore-point", "history.restore-point", { ["restore-point", "--zone", ZoneID.defaultZoneName, "--at", "0"] + place }, nil),
            ("history retention", "history.retention", { ["history", "retention", "--set", "90d"] + place }, nil),
            ("seeds save", "seed.save", { ["seeds", "save", "--container", c, "--type", "Note", "notes"] }, nil),
            (
                "personal-fields set", "schema.field.personal",
                { ["personal-fields", "set", "--container", c, "--type", "Note", "--field", "title"] }, nil
            ),
            ("deploy", "schema.deploy", { ["deploy", "--container", c] }, nil),
            ("copy-to-development", "data.copy-to-development", { ["copy-to-development", "--container", c, "--type", "Note"] }, nil),
            ("reset", "environment.reset", { ["reset", "--container", c] }, nil),
            ("seeds delete", "seed.delete", { ["seeds", "delete", "--container", c, "notes"] }, nil),
            ("backups take", "backup.take", { ["backups", "take"] }, nil),
            ("backups delete", "backup.delete", { ["backups", "delete", try store.backups().first?.name ?? "none"] }, nil),
        ]
        #expect(steps.map(\.command).sorted() == Self.changing.values.flatMap { $0 }.sorted(), "every changing command is walked")
        for step in steps {
            let last = try store.auditEntries(AuditFilter(limit: 1)).first?.id ?? 0
            let run = try CumulusBinary.run(
                try step.arguments() + ["--data-dir", fixture.fixture.directory], input: step.input, environment: environment)
            #expect(run.status == 0, "\(step.command): \(run.error)")
            let added = try store.auditEntries(AuditFilter(limit: 10)).filter { $0.id > last }
            #expect(added.map(\.action) == [step.action], "\(step.command)")
            #expect(added.allSatisfy { $0.actor == "local command line" && $0.operatorName == "local" }, "\(step.command)")
        }
    }
}
