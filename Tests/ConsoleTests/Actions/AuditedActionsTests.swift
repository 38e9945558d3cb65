import CloudKitWire
import CloudStore
import Console
import Foundation
import TestSupport
import Testing

/// Every admin action that changes something is audited by the store, in the change's own
/// transaction: one entry per action, and no change when the entry cannot be written.
@Suite struct AuditedActionsTests {
    /// The public actions that change state, each walked by ``everyChangingActionWritesExactlyOneAuditEntry()``.
    static let changing = [
        "createContainer", "createAPIToken", "revokeAPIToken", "addServerKey", "revokeServerKey", "createManagementToken",
        "revokeManagementToken", "addOperator", "setOperatorRole", "setOperatorPassword", "removeOperator", "rotateSecret", "setLimits",
        "addUser",
        "setUserPassword", "setUserDiscoverable", "signOutUser", "exportUser", "eraseUser", "removeUser", "importSchema",
        "createRecordType", "addField",
        "setIndexes", "deleteFromSchema", "createRole", "setGrants", "setUserRoles", "changeUserRole", "deleteRole", "createZone",
        "deleteZone", "modifyRecords", "uploadAsset", "deleteSubscription", "revokePushToken", "removeShareParticipant", "deleteShare",
        "leaveSharedZone", "restoreFromTrash", "revertRecord", "restorePoint", "setHistoryRetention", "saveSeed", "setPersonal",
        "deploySchema", "copyToDevelopment", "resetDevelopment", "deleteSeed", "takeBackup", "downloadBackup", "restoreFromBackup",
        "deleteBackup",
    ]

    /// The public actions that only read (a dry run such as `validateSchema` included).
    static let reading = [
        "operators", "apiTokens", "auditTrail", "browseRecords", "changeLog", "container", "containers", "developmentContents",
        "exportRecords",
        "exportRequestLog", "limits", "lookupRecords", "managementTokens", "nextChanges", "notificationQueues", "notifications",
        "pushTokens", "queryRecords", "recordCounts", "recordReferrers", "requestLog", "requestLogEntry", "requestLogFilter", "schema",
        "schemaDeployments", "schemaDifference", "schemaGuard", "schemaText", "security", "serverKeys", "shares", "signInAttacks",
        "simulateAccess",
        "subscriptions", "usage", "usageOverview", "users", "validateSchema", "previewSchemaImport", "zones", "backups", "trash",
        "recordHistory", "historyRetention", "seeds", "personalFields", "traceDelivery", "exportAuditTrail",
    ]

    /// A public action added to `ManagementActions` must be listed above, as changing (and then
    /// walked below) or as reading.
    @Test func everyPublicActionIsListedAsChangingOrReading() throws {
        let folder = Repository.root + "/Sources/Console/Actions"
        // Actions are instance methods; static ones parse an action's inputs (grants, a usage range).
        let declaration = /public\s+func\s+(\w+)/
        var declared = Set<String>()
        for file in try FileManager.default.contentsOfDirectory(atPath: folder) where file.hasPrefix("ManagementActions") {
            let text = try String(contentsOfFile: folder + "/" + file, encoding: .utf8)
            for match in text.matches(of: declaration) { declared.insert(String(match.1)) }
        }
        #expect(declared.count > 50, "the actions were found")
        #expect(declared.subtracting(Self.changing + Self.reading).sorted() == [], "list each new action as changing or reading")
        #expect(Set(Self.changing + Self.reading).subtracting(declared).sorted() == [], "no listed action is gone")
        #expect(Set(Self.changing).isDisjoint(with: Self.reading))
    }

    /// Each changing action, run once, leaves exactly one new audit entry, naming its action and
    /// who acted; on SQLite and on PostgreSQL.
    @Test func everyChangingActionWritesExactlyOneAuditEntry() throws {
        let fixture = try AdminFixture()
        let (store, actions, actor, c) = (fixture.store, ManagementActions(store: fixture.store), fixture.actor, fixture.fixture.container)
        var apiToken = "", keyID = "", managementToken = "", backup = ""
        let dev = Environment.development
        let steps: [(name: String, action: String, run: () throws -> Void)] = [
            ("createContainer", "container.create", { _ = try actions.createContainer("iCloud.com.example.Second", as: actor) }),
            (
                "createAPIToken", "token.create",
                {
                    apiToken = try actions.createAPIToken(
                        in: c, environment: dev, name: "t", allowedOrigins: [], signInCallback: nil, as: actor
                    ).token
                }
            ),
            ("revokeAPIToken", "token.revoke", { _ = try actions.revokeAPIToken(apiToken, in: c, as: actor) }),
            (
                "addServerKey", "key.add",
                {
                    keyID = try actions.addServerKey(in: c, environment: dev, publicKeyPEM: KeyFixtures.p256, name: nil, as: actor).keyID
                }
            ),
            ("revokeServerKey", "key.revoke", { _ = try actions.revokeServerKey(keyID, in: c, as: actor) }),
            (
                "createManagementToken", "management-token.create",
                {
                    managementToken = try actions.createManagementToken(name: "t", as: actor).id
                }
            ),
            ("revokeManagementToken", "management-token.revoke", { _ = try actions.revokeManagementToken(managementToken, as: actor) }),
            ("addOperator", "operator.add", { _ = try actions.addOperator("temp", password: "operator password", as: actor) }),
            (
                "setOperatorRole", "operator.role",
                { _ = try actions.setOperatorRole(.viewer, containers: [c.rawValue], of: "temp", as: actor) }
            ),
            (
                "setOperatorPassword", "operator.password",
                { _ = try actions.setOperatorPassword("another password", of: "temp", as: actor) }
            ),
            ("removeOperator", "operator.remove", { _ = try actions.removeOperator("temp", as: actor) }),
            ("rotateSecret", "secret.rotate", { _ = try actions.rotateSecret(as: actor) }),
            ("setLimits", "limits.set", { _ = try actions.setLimits(LimitsChange(burst: 50), of: c, environment: dev, as: actor) }),
            (
                "addUser", "user.add",
                {
                    _ = try actions.addUser(
                        in: c, name: "carol", password: "a long passphrase", emailAddress: nil, firstName: nil, lastName: nil, as: actor)
                }
            ),
            (
                "setUserPassword", "user.password",
                { _ = try actions.setUserPassword("carol", in: c, password: "another passphrase", as: actor) }
            ),
            (
                "setUserDiscoverable", "user.discoverable",
                { _ = try actions.setUserDiscoverable("carol", in: c, discoverable: true, as: actor) }
            ),
            ("signOutUser", "user.sign-out", { _ = try actions.signOutUser("carol", in: c, as: actor) }),
            (
                "exportUser", "user.export",
                {
                    let export = try actions.exportUser("carol", in: c, environment: nil, as: actor)
                    try FileManager.default.removeItem(atPath: URL(fileURLWithPath: export.path).deletingLastPathComponent().path)
                }
            ),
            (
                "eraseUser", "user.erase",
                { _ = try actions.eraseUser("carol", in: c, environment: "development", dryRun: false, as: actor) }
            ),
            ("removeUser", "user.remove", { _ = try actions.removeUser("carol", in: c, as: actor) }),
            ("importSchema", "schema.import", { _ = try actions.importSchema(AdminFixture.schema, into: c, environment: dev, as: actor) }),
            (
                "createRecordType", "schema.record-type.create",
                { _ = try actions.createRecordType("Place", in: c, environment: dev, as: actor) }
            ),
            (
                "addField", "schema.field.add",
                {
                    _ = try actions.addField(
                        "name", type: "STRING", indexes: ["QUERYABLE"], to: "Place", in: c, environment: dev, as: actor)
                }
            ),
            (
                "setIndexes", "schema.indexes.set",
                {
                    _ = try actions.setIndexes(["SORTABLE"], of: "name", recordType: "Place", in: c, environment: dev, as: actor)
                }
            ),
            (
                "deleteFromSchema", "schema.field.delete",
                {
                    // Unaudited: no actor.
                    try store.addField(FieldDefinition(name: "gone", type: .int64), to: "Place", in: c, dev)
                    _ = try actions.deleteFromSchema(field: "gone", of: "Place", confirmed: true, in: c, environment: dev, as: actor)
                }
            ),
            ("createRole", "security.role.create", { _ = try actions.createRole("editor", in: c, environment: dev, as: actor) }),
            (
                "setGrants", "security.grants",
                {
                    _ = try actions.setGrants([Grant([.read], to: "editor")], of: "Place", in: c, environment: dev, as: actor)
                }
            ),
            (
                "setUserRoles", "security.user-roles",
                { _ = try actions.setUserRoles(["editor"], of: "alice", in: c, environment: dev, as: actor) }
            ),
            (
                "changeUserRole", "security.user-roles",
                {
                    _ = try actions.changeUserRole("editor", of: "alice", give: false, in: c, environment: dev, as: actor)
                }
            ),
            ("deleteRole", "security.role.delete", { _ = try actions.deleteRole("editor", in: c, environment: dev, as: actor) }),
            (
                "createZone", "zone.create",
                {
                    _ = try actions.createZone("Trips", in: c, environment: dev, database: .private, user: "alice", as: actor)
                }
            ),
            (
                "deleteZone", "zone.delete",
                {
                    _ = try actions.deleteZone("Trips", in: c, environment: dev, database: .private, user: "alice", as: actor)
                }
            ),
            (
                "modifyRecords", "record.create",
                {
                    _ = try actions.modifyRecords(
                        AdminFixture.createNote("n1"), in: c, environment: dev, database: .public, user: nil, as: actor)
                }
            ),
            (
                "uploadAsset", "record.asset.upload",
                {
                    _ = try actions.uploadAsset(
                        Array("a file".utf8), recordType: "Note", field: "file", recordName: "n1", zone: ZoneID.defaultZoneName, in: c,
                        environment: dev, database: .public, user: nil, as: actor)
                }
            ),
            (
                "deleteSubscription", "subscription.delete",
                {
                    _ = try actions.deleteSubscription(
                        "notes", of: "alice", database: .public, owner: nil, in: c, environment: dev, as: actor)
                }
            ),
            (
                "revokePushToken", "pushToken.revoke",
                { _ = try actions.revokePushToken(fixture.pushTokenID, in: c, environment: dev, as: actor) }
            ),
            (
                "removeShareParticipant", "share.participant.remove",
                {
                    _ = try actions.removeShareParticipant(
                        "bob", share: "share-trip", zone: "Work", owner: "alice", in: c, environment: dev, as: actor)
                }
            ),
            (
                "deleteShare", "share.delete",
                {
                    _ = try actions.deleteShare("share-trip", zone: "Work", owner: "alice", in: c, environment: dev, as: actor)
                }
            ),
            (
                "leaveSharedZone", "share.leave",
                {
                    // Alice shares another record with bob, who accepts, as users do (unaudited); then he leaves.
                    try fixture.shareWithBob("trip-2")
                    _ = try actions.leaveSharedZone("Work", owner: "alice", user: "bob", in: c, environment: dev, as: actor)
                }
            ),
            (
                "restoreFromTrash", "trash.restore",
                {
                    _ = try actions.restoreFromTrash(
                        in: c, environment: dev, database: .private, user: "alice", zone: "Trips", type: nil, records: nil, since: nil,
                        as: actor)
                }
            ),
            (
                "revertRecord", "history.revert",
                {
                    // A version to go back to, made without an audit entry of its own.
                    let notes = try fixture.fixture.database()
                    try notes.create("Note", "h1", ["title": .string("first")])
                    _ = try notes.modify(
                        ModifyRequest(operations: [
                            RecordOperation(.forceUpdate, recordName: "h1", recordType: "Note", fields: ["title": .string("second")])
                        ]))
                    let history = try actions.recordHistory(
                        "h1", zone: nil, in: c, environment: dev, database: .public, user: nil, as: actor)
                    _ = try actions.revertRecord(
                        "h1", zone: nil, toVersion: history.versions[0].version, changeTag: nil, in: c, environment: dev, database: .public,
                        user: nil, as: actor)
                }
            ),
            (
                "restorePoint", "history.restore-point",
                {
                    _ = try actions.restorePoint(
                        in: c, environment: dev, database: .public, user: nil, zone: ZoneID.defaultZoneName, type: nil, at: "0",
                        dryRun: false, as: actor)
                }
            ),
            (
                "setHistoryRetention", "history.retention",
                { _ = try actions.setHistoryRetention(seconds: 90 * 86_400, in: c, environment: dev, as: actor) }
            ),
            ("saveSeed", "seed.save", { _ = try actions.saveSeed(named: "notes", of: c, recordTypes: ["Note"], query: nil, as: actor) }),
            (
                "setPersonal", "schema.field.personal",
                { _ = try actions.setPersonal(true, field: "title", recordType: "Note", of: c, as: actor) }
            ),
            ("deploySchema", "schema.deploy", { _ = try actions.deploySchema(of: c, as: actor) }),
            (
                "copyToDevelopment", "data.copy-to-development",
                { _ = try actions.copyToDevelopment(of: c, recordTypes: ["Note"], query: nil, as: actor) }
            ),
            (
                "resetDevelopment", "environment.reset",
                { _ = try actions.resetDevelopment(of: c, confirmation: c.rawValue, seed: "notes", as: actor) }
            ),
            ("deleteSeed", "seed.delete", { _ = try actions.deleteSeed(named: "notes", of: c, as: actor) }),
            ("takeBackup", "backup.take", { backup = try actions.takeBackup(as: actor).name }),
            ("downloadBackup", "backup.download", { _ = try actions.downloadBackup(backup, as: actor) }),
            (
                "restoreFromBackup", "history.restore-from-backup",
                {
                    _ = try actions.restoreFromBackup(
                        backup, in: c, environment: dev, database: .public, user: nil, zone: ZoneID.defaultZoneName, type: nil,
                        dryRun: false, as: actor)
                }
            ),
            ("deleteBackup", "backup.delete", { _ = try actions.deleteBackup(backup, as: actor) }),
        ]
        #expect(steps.map(\.name) == Self.changing, "every changing action is walked, in the listed order")
        for step in steps {
            let last = try store.auditEntries(AuditFilter(limit: 1)).first?.id ?? 0
            try step.run()
            let added = try store.auditEntries(AuditFilter(limit: 10)).filter { $0.id > last }
            #expect(added.map(\.action) == [step.action], "\(step.name)")
            #expect(added.allSatisfy { $0.actor == "root" && $0.operatorName == "root" }, "\(step.name)")
        }
    }

    /// When the audit entry cannot be written, the change is not made: a catalog change (an API
    /// token's revocation) and an environment change (a record's creation), on SQLite and on
    /// PostgreSQL.
    @Test func aChangeWhoseAuditEntryCannotBeWrittenIsNotMade() throws {
        let fixture = try AdminFixture()
        let (store, actions, actor, c) = (fixture.store, ManagementActions(store: fixture.store), fixture.actor, fixture.fixture.container)
        let token = try store.createAPIToken(fixture.fixture.container, .development)
        try fixture.refuseAuditEntries()

        #expect(throws: (any Error).self) { _ = try actions.revokeAPIToken(token.token, in: c, as: actor) }
        #expect(try store.apiToken(token.token) != nil, "the token was not revoked")
        #expect(throws: (any Error).self) {
            _ = try actions.modifyRecords(
                AdminFixture.createNote("kept-out"), in: c, environment: .development, database: .public, user: nil, as: actor)
        }
        let lookup = try fixture.fixture.database().lookup([RecordLookup("kept-out")]).first
        #expect(lookup?.record == nil, "the record was not saved")
        #expect(throws: (any Error).self) { _ = try actions.addOperator("temp", password: "operator password", as: actor) }
        #expect(try store.operators().map(\.name) == ["root"], "the operator was not added")
    }
}
