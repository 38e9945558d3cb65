import CloudKitWire
import CloudStore
import TestSupport
import Testing

@testable import WebServices

/// The trash, reverts and restore points as a syncing client sees them over HTTP: what an
/// operator restores reaches a client following the change feeds from tokens taken before, as
/// new changes.
@Suite struct HistoryAPITests {
    /// A client of one user's private database that keeps a copy of its zones by following
    /// `changes/database` and each zone's `records/changes`, as CloudKit's clients do: a zone
    /// whose token is refused (it was deleted and made again) is fetched again from the start.
    final class SyncClient {
        let server: APITestServer
        let token: String
        var databaseToken: String?
        var zoneTokens: [String: String] = [:]
        /// Each zone's records: name to fields.
        var zones: [String: [String: JSONValue]] = [:]

        init(_ server: APITestServer, token: String) {
            self.server = server
            self.token = token
        }

        /// Follows the database's feed, then each changed zone's feed, to their ends.
        func sync() throws {
            var changed: [String] = []
            while true {
                let body: JSONValue = databaseToken.map { ["syncToken": .string($0)] } ?? [:]
                let page = try server.post("private", "changes/database", body.text, webAuthToken: token).json()
                for zone in page["zones"]?.arrayValue ?? [] {
                    guard let name = zone["zoneID"]?["zoneName"]?.stringValue else { continue }
                    if zone["deleted"] == true || zone["purged"] == true {
                        zones[name] = nil
                        zoneTokens[name] = nil
                    } else {
                        changed.append(name)
                    }
                }
                databaseToken = page["syncToken"]?.stringValue
                if page["moreComing"] != true { break }
            }
            for zone in changed { try syncZone(zone) }
        }

        /// Follows one zone's feed, seven records a page.
        func syncZone(_ zone: String) throws {
            while true {
                var body: [(String, JSONValue)] = [("zoneID", ["zoneName": .string(zone)]), ("resultsLimit", 7)]
                if let held = zoneTokens[zone] { body.append(("syncToken", .string(held))) }
                let response = try server.post(
                    "private", "records/changes", JSONValue.object(JSONObject(body)).text, webAuthToken: token)
                guard response.status == 200 else {
                    // A token of a zone deleted since: start again from nothing.
                    #expect(zoneTokens[zone] != nil, "a feed from the start is refused: \(response.text)")
                    zoneTokens[zone] = nil
                    zones[zone] = [:]
                    continue
                }
                let page = try response.json()
                for record in page["records"]?.arrayValue ?? [] {
                    guard let name = record["recordName"]?.stringValue else { continue }
                    if record["deleted"] == true {
                        zones[zone, default: [:]].removeValue(forKey: name)
                    } else {
                        zones[zone, default: [:]][name] = record["fields"] ?? [:]
                    }
                }
                zoneTokens[zone] = page["syncToken"]?.stringValue
                if page["moreComing"] != true { return }
            }
        }
    }

    private static func modify(_ server: APITestServer, _ token: String, zone: String, _ operations: [JSONValue]) throws -> JSONValue {
        let body: JSONValue = ["operations": .array(operations), "zoneID": ["zoneName": .string(zone)]]
        let response = try server.post("private", "records/modify", body.text, webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
        let answer = try response.json()
        #expect(answer["records"]?.arrayValue?.allSatisfy { $0["serverErrorCode"] == nil } == true, "\(response.text)")
        return answer
    }

    private static func save(_ name: String, title: String, count: Int64) -> JSONValue {
        [
            "operationType": "forceReplace",
            "record": [
                "recordName": .string(name), "recordType": "Note",
                "fields": ["title": ["value": .string(title)], "count": ["value": .integer(count)]],
            ],
        ]
    }

    private static func delete(_ name: String) -> JSONValue { ["operationType": "forceDelete", "record": ["recordName": .string(name)]] }

    private static func zones(_ server: APITestServer, _ token: String, _ kind: String, _ names: [String]) throws {
        let body: JSONValue = [
            "operations": .array(names.map { ["operationType": .string(kind), "zone": ["zoneID": ["zoneName": .string($0)]]] })
        ]
        let response = try server.post("private", "zones/modify", body.text, webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
    }

    private func owner(_ server: APITestServer) throws -> DatabaseID {
        .private(try #require(try server.store.user(named: server.userName, in: server.container)).userRecordName)
    }

    @Test func deletedRecordsAndAZoneRestoredReachAClientFollowingFromBefore() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        try Self.zones(server, token, "create", ["Notes", "Trips"])
        _ = try Self.modify(server, token, zone: "Notes", (0..<60).map { Self.save("n\($0)", title: "note \($0)", count: Int64($0)) })
        _ = try Self.modify(server, token, zone: "Trips", (0..<9).map { Self.save("t\($0)", title: "trip \($0)", count: Int64($0)) })
        let client = SyncClient(server, token: token)
        try client.sync()
        let had = client.zones
        #expect(had["Notes"]?.count == 60 && had["Trips"]?.count == 9)

        _ = try Self.modify(server, token, zone: "Notes", (0..<50).map { Self.delete("n\($0)") })
        try Self.zones(server, token, "delete", ["Trips"])
        // The client learns of the deletions: they are real.
        let witness = SyncClient(server, token: token)
        (witness.databaseToken, witness.zoneTokens, witness.zones) = (client.databaseToken, client.zoneTokens, client.zones)
        try witness.sync()
        #expect(witness.zones["Notes"]?.count == 10 && witness.zones["Trips"] == nil)

        let database = try owner(server)
        let trash = try server.store.trash(server.container, .development, in: HistoryScope(database: database), by: .local)
        #expect(trash.records.count == 59 && trash.zones.map(\.zoneName) == ["Trips"])
        let notes = try server.store.restoreFromTrash(
            server.container, .development, in: HistoryScope(database: database, zoneName: "Notes"), by: .local)
        let trips = try server.store.restoreFromTrash(
            server.container, .development, in: HistoryScope(database: database, zoneName: "Trips"), by: .local)
        #expect(notes.restored == 50 && trips.restored == 9 && trips.zonesRestored == ["Trips"])

        // From the tokens taken before the deletions, the client ends with exactly what it had.
        try client.sync()
        #expect(client.zones == had)
        // And so does the client that saw the deletions.
        try witness.sync()
        #expect(witness.zones == had)
    }

    @Test func aRecordRevertedToAnOlderVersionReachesTheClient() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        try Self.zones(server, token, "create", ["Notes"])
        _ = try Self.modify(server, token, zone: "Notes", [Self.save("a", title: "first", count: 1)])
        let client = SyncClient(server, token: token)
        try client.sync()
        let first = client.zones["Notes"]?["a"]
        let saved = try Self.modify(server, token, zone: "Notes", [Self.save("a", title: "second", count: 2)])
        let tag = try #require(saved["records"]?[0]?["recordChangeTag"]?.stringValue)
        try client.sync()
        #expect(client.zones["Notes"]?["a"]?["title"]?["value"] == "second")

        let database = try owner(server)
        let history = try server.store.history(
            ofRecord: "a", zoneName: "Notes", in: database, server.container, .development, by: .local)
        let version = try #require(history.entries.first?.version)
        #expect(history.entries.first?.changedFields == ["count", "title"])
        // Who replaced it and through what, in words: the app's API token (named "API token").
        #expect(version.via == "API token API token")
        _ = try server.store.revert(
            recordName: "a", zoneName: "Notes", in: database, toVersion: version.id, changeTag: tag, server.container, .development,
            by: .local)
        try client.sync()
        #expect(client.zones["Notes"]?["a"] == first)
    }

    @Test func aZoneRestoredToAPointInThePastLeavesAnotherZonesNewerWrites() throws {
        let clock = TestClock()
        let server = try APITestServer(configure: { configuration in configuration.clock = { clock.tick() } })
        let token = try server.signIn()
        try Self.zones(server, token, "create", ["Notes", "Trips"])
        _ = try Self.modify(server, token, zone: "Notes", (0..<20).map { Self.save("n\($0)", title: "note \($0)", count: Int64($0)) })
        _ = try Self.modify(server, token, zone: "Trips", [Self.save("t0", title: "trip", count: 0)])
        let client = SyncClient(server, token: token)
        try client.sync()
        let notesThen = client.zones["Notes"]
        clock.advance(by: 60_000)
        let point = clock.tick()
        clock.advance(by: 60_000)

        _ = try Self.modify(
            server, token, zone: "Notes",
            (0..<5).map { Self.save("n\($0)", title: "changed", count: 100) } + (5..<10).map { Self.delete("n\($0)") }
                + [Self.save("new", title: "new", count: 0)])
        _ = try Self.modify(
            server, token, zone: "Trips", [Self.save("t0", title: "trip, later", count: 1), Self.save("t1", title: "t1", count: 1)])
        try client.sync()
        let tripsNow = client.zones["Trips"]
        #expect(tripsNow?.count == 2)

        let scope = HistoryScope(database: try owner(server), zoneName: "Notes")
        let plan = try server.store.restorePoint(server.container, .development, in: scope, at: point, dryRun: true, by: .local)
        #expect((plan.removed, plan.reverted, plan.restored) == (1, 5, 5) && plan.dryRun)
        let done = try server.store.restorePoint(server.container, .development, in: scope, at: point, dryRun: false, by: .local)
        #expect(done.total == 11)

        try client.sync()
        #expect(client.zones["Notes"] == notesThen)
        #expect(client.zones["Trips"] == tripsNow)
    }

    /// A zone, and then a record type, restored from a backup into the running server: the
    /// preview counts what changes, the client following its feeds from before ends with what
    /// the backup held, and another zone's newer writes stay.
    @Test func aZoneRestoredFromABackupReachesAClientAndLeavesAnotherZone() throws {
        let server = try APITestServer(configure: { configuration in
            configuration.backups = BackupSchedule(location: .directory(configuration.dataDirectory + "/backups"))
        })
        let token = try server.signIn()
        try Self.zones(server, token, "create", ["Notes", "Trips"])
        _ = try Self.modify(server, token, zone: "Notes", (0..<20).map { Self.save("n\($0)", title: "note \($0)", count: Int64($0)) })
        _ = try Self.modify(server, token, zone: "Trips", (0..<3).map { Self.save("t\($0)", title: "trip \($0)", count: Int64($0)) })
        let client = SyncClient(server, token: token)
        try client.sync()
        let held = client.zones
        let backup = try server.store.takeBackup().name

        _ = try Self.modify(
            server, token, zone: "Notes",
            (0..<5).map { Self.save("n\($0)", title: "changed", count: 100) } + (5..<10).map { Self.delete("n\($0)") }
                + [Self.save("new", title: "new", count: 0)])
        _ = try Self.modify(server, token, zone: "Trips", [Self.save("t0", title: "trip, later", count: 9)])
        try client.sync()
        let tripsNow = client.zones["Trips"]

        let database = try owner(server)
        let notes = HistoryScope(database: database, zoneName: "Notes")
        let plan = try server.store.restoreFromBackup(named: backup, server.container, .development, in: notes, dryRun: true, by: .local)
        #expect((plan.restored, plan.reverted, plan.removed) == (5, 5, 1) && plan.dryRun)
        #expect(plan.sample.contains("Notes/new") && plan.sample.contains("Notes/n5"))
        let done = try server.store.restoreFromBackup(named: backup, server.container, .development, in: notes, dryRun: false, by: .local)
        #expect(done.total == 11 && !done.dryRun)
        try client.sync()
        #expect(client.zones["Notes"] == held["Notes"])
        #expect(client.zones["Trips"] == tripsNow, "another zone's newer writes stay")
        // Written back already: a second restore changes nothing.
        #expect(
            try server.store.restoreFromBackup(named: backup, server.container, .development, in: notes, dryRun: true, by: .local).total
                == 0)

        // A zone deleted since is made again with what the backup holds; by type, every zone.
        try Self.zones(server, token, "delete", ["Trips"])
        let byType = HistoryScope(database: database, recordType: "Note")
        let trips = try server.store.restoreFromBackup(named: backup, server.container, .development, in: byType, dryRun: false, by: .local)
        #expect(trips.zonesRestored == ["Trips"] && trips.restored == 3 && trips.removed == 0)
        try client.sync()
        #expect(client.zones == held)

        #expect(throws: CloudStoreError.notFound("There is no backup cumulus-backup-20200101T000000.000Z.tar")) {
            try server.store.restoreFromBackup(
                named: "cumulus-backup-20200101T000000.000Z.tar", server.container, .development, in: notes, dryRun: true, by: .local)
        }
        #expect(throws: CloudStoreError.notFound("The backup \(backup) holds no zone Later in the \(database) database")) {
            try server.store.restoreFromBackup(
                named: backup, server.container, .development, in: HistoryScope(database: database, zoneName: "Later"), dryRun: true,
                by: .local)
        }
        #expect(throws: CloudStoreError.badRequest("A restore from a backup names a zone or a record type")) {
            try server.store.restoreFromBackup(
                named: backup, server.container, .development, in: HistoryScope(database: database), dryRun: true, by: .local)
        }
    }
}

extension JSONValue {
    /// The value as JSON text, for a request body.
    fileprivate var text: String { String(decoding: serialized(), as: UTF8.self) }
}
