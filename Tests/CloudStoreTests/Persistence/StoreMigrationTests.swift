import Crypto
import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// `migrate-store`: a store filled through CloudStore on SQLite is copied into PostgreSQL, and a
/// store opened there serves the same records, zones, credentials and queued notifications, and
/// continues the change tokens the SQLite store handed out.
@Suite(.enabled(if: TestBackend.isSQLite, "Copies a SQLite store into PostgreSQL itself, once, in the default run"))
struct StoreMigrationTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SORTABLE SEARCHABLE,
                count INT64 QUERYABLE SORTABLE,
                score DOUBLE QUERYABLE,
                due TIMESTAMP QUERYABLE,
                place LOCATION QUERYABLE,
                owner REFERENCE QUERYABLE,
                tags LIST<STRING> QUERYABLE SEARCHABLE,
                numbers LIST<INT64> QUERYABLE,
                data BYTES,
                file ASSET,
                GRANT WRITE TO "_creator",
                GRANT CREATE TO "_icloud",
                GRANT READ TO "_world"
            );
            RECORD TYPE Item ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ, CREATE, WRITE TO "_creator");
        """

    /// The store on SQLite, filled, with the tokens taken from it along the way.
    struct Source {
        let temporary: TemporaryStore
        let alice: String
        let bob: String
        let apiToken: APIToken
        let webAuthToken: String
        let managementToken: String
        let pushToken: PushToken
        /// The public default zone's token from before its last changes, and its current one.
        let publicMidToken: String
        let publicToken: String
        /// Alice's zone Work's token from before its last changes.
        let workMidToken: String
        /// Alice's private database's token from before its last zone changes, and its current one.
        let databaseMidToken: String
        let databaseToken: String

        var store: CloudStore { temporary.store }
        var container: ContainerIdentifier { temporary.container }

        func publicDatabase(_ store: CloudStore? = nil) throws -> CloudDatabase {
            try (store ?? self.store).database(container, .development, .public, as: .operator())
        }

        func alicePrivate(_ store: CloudStore? = nil) throws -> CloudDatabase {
            try (store ?? self.store).database(container, .development, .private, as: .user(alice))
        }
    }

    static func note(_ index: Int, owner: String) -> [String: FieldValue] {
        [
            "title": .string("Note \(index): tab\there, newline\nthere, back\\slash, café"),
            "count": .int64(Int64(index) * 7 - 20),
            "score": .double(Double(index) / 3),
            "due": .timestamp(1_700_000_000_000 + Int64(index)),
            "place": .location(Location(latitude: 38.7 + Double(index) / 100, longitude: -9.1)),
            "owner": .reference(Reference(recordName: owner, action: .none)),
            "tags": .list(.string, [.string("tag\(index % 3)"), .string("shared words")]),
            "numbers": .list(.int64, [.int64(Int64(index)), .int64(-1)]),
            "data": .bytes([0, 9, 10, 13, 92, 255, UInt8(index)]),
        ]
    }

    static func makeSource() throws -> Source {
        let temporary = try TemporaryStore()
        let store = temporary.store, container = temporary.container
        try temporary.importSchema(schema)
        _ = try store.deploySchema(container, deployedBy: "admin")
        let alice = try store.addUser(container, name: "alice", password: "a long passphrase", emailAddress: "alice@example.com")
            .userRecordName
        let bob = try store.addUser(
            container, name: "bob", password: "a long passphrase", emailAddress: "Bob@Example.com", isDiscoverable: true
        )
        .userRecordName
        let apiToken = try store.createAPIToken(container, .development, name: "web", allowedOrigins: ["https://example.com"])
        _ = try store.addServerKey(container, .development, publicKeyPEM: KeyFixtures.p256, name: "backend")
        _ = try store.addOperator("root-admin", password: "a long operator password")
        let managementToken = try store.createManagementToken(for: "root-admin", name: "scripts").text
        try store.setLimits(EnvironmentLimits(requestsPerSecond: 12.5, burst: 30, storageBytes: 1 << 30), of: container, .development)
        let webAuthToken = try store.signIn(container, .development, name: "alice", password: "a long passphrase").webAuthToken
        let pushToken = try store.createPushToken(container, .development, apnsEnvironment: "development", caller: .user(alice))
        _ = try store.database(container, .development, .public, as: .user(alice)).modifySubscriptions([
            SubscriptionOperation(
                .create,
                Subscription(
                    subscriptionID: "notes",
                    kind: .query(Query(recordType: "Note"), zoneName: nil, firesOn: [.create, .update], firesOnce: false)))
        ])

        // The public database's default zone: notes of every field type, an asset, updates and deletions.
        let publicDatabase = try store.database(container, .development, .public, as: .operator())
        for index in 0..<12 { _ = try publicDatabase.create("Note", "note-\(index)", note(index, owner: alice)) }
        let ticket = try #require(
            try publicDatabase.assetUploadTickets([AssetUploadRequest(recordName: "with-file", recordType: "Note", fieldName: "file")])
                .first)
        let uploaded = try store.uploadAsset(ticket: ticket.ticket, content: Array("the file's bytes".utf8))
        _ = try publicDatabase.create(
            "Note", "with-file",
            ["file": .asset(Asset(fileChecksum: uploaded.fileChecksum, size: uploaded.size, receipt: uploaded.receipt))])
        let publicMidToken = try publicDatabase.zoneChanges(syncToken: nil).syncToken
        let bobsNotes = try store.database(container, .development, .public, as: .user(bob))
        _ = try bobsNotes.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "by-bob", recordType: "Note", fields: note(40, owner: bob))]))
        let updated = try publicDatabase.modify(
            ModifyRequest(operations: [
                RecordOperation(
                    .forceUpdate, recordName: "note-1", recordType: "Note", fields: ["title": .string("Changed"), "count": .int64(1000)]),
                RecordOperation(.forceDelete, recordName: "note-2", recordType: "Note", fields: [:]),
                RecordOperation(.forceDelete, recordName: "note-3", recordType: "Note", fields: [:]),
            ]))
        #expect(updated.allSatisfy { $0.error == nil }, "\(updated)")
        let publicToken = try publicDatabase.zoneChanges(syncToken: nil).syncToken

        // Alice's private database: zones, a deleted zone, records with a hierarchy and a share.
        let alicePrivate = try store.database(container, .development, .private, as: .user(alice))
        _ = try alicePrivate.modifyZones(["Work", "Home", "Trips"].map { ZoneOperation(.create, zoneName: $0) })
        _ = try alicePrivate.modify(
            ModifyRequest(
                operations: (0..<5).map {
                    RecordOperation(.create, recordName: "item-\($0)", recordType: "Item", fields: ["title": .string("Item \($0)")])
                }, zoneName: "Work"))
        let workMidToken = try alicePrivate.zoneChanges(zoneName: "Work", syncToken: nil).syncToken
        let databaseMidToken = try alicePrivate.databaseChanges(syncToken: nil).syncToken
        _ = try alicePrivate.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.forceUpdate, recordName: "item-0", recordType: "Item", fields: ["title": .string("Item zero")]),
                    RecordOperation(.forceDelete, recordName: "item-4", recordType: "Item", fields: [:]),
                ], zoneName: "Work"))
        _ = try alicePrivate.modifyZones([ZoneOperation(.delete, zoneName: "Home")])
        _ = try alicePrivate.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "trip", recordType: "Item", fields: ["title": .string("Lisbon")]),
                    RecordOperation(
                        .create, recordName: "day1", recordType: "Item", fields: ["title": .string("Day one")], parent: .some("trip")),
                ], zoneName: "Trips"))
        let shared = try alicePrivate.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .create, recordName: "share-trip", recordType: Share.recordType, fields: ["cloudkit.title": .string("Lisbon trip")],
                        share: ShareChange(
                            rootRecordName: "trip", publicPermission: nil,
                            participants: [.init(emailAddress: "bob@example.com", permission: .readOnly)]))
                ], zoneName: "Trips"))
        #expect(shared.first?.record?.sharing != nil, "\(shared)")
        let databaseToken = try alicePrivate.databaseChanges(syncToken: nil).syncToken

        // Calls in the request log, some of them errors.
        for index in 0..<30 {
            store.requestLog.record(
                RequestLogEntry(
                    time: 1_700_000_000_000 + Int64(index) * 1000, container: container.rawValue, environment: "development",
                    database: "public",
                    operation: index % 2 == 0 ? "records/query" : "records/modify", user: index % 3 == 0 ? nil : alice,
                    clientAddress: "127.0.0.1", status: index % 7 == 0 ? 400 : 200, serverErrorCode: index % 7 == 0 ? "BAD_REQUEST" : nil,
                    durationMicroseconds: Int64(100 + index), bytesIn: Int64(index), bytesOut: 2 * Int64(index),
                    requestID: "request-\(index)"))
        }
        try store.requestLog.flush()
        return Source(
            temporary: temporary, alice: alice, bob: bob, apiToken: apiToken, webAuthToken: webAuthToken, managementToken: managementToken,
            pushToken: pushToken, publicMidToken: publicMidToken, publicToken: publicToken, workMidToken: workMidToken,
            databaseMidToken: databaseMidToken, databaseToken: databaseToken)
    }

    /// A store on `database`, as a server started there with the old data directory's assets would open it.
    static func openOnPostgres(_ database: TestDatabase, source: Source) throws -> CloudStore {
        let clock = source.temporary.clock
        var configuration = CloudStoreConfiguration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-test-\(UUID().uuidString)").path,
            clock: { clock.tick() })
        configuration.database = .postgres(url: database.url)
        configuration.assetStorage = .directory(source.temporary.directory)
        configuration.passwordHasher = PasswordHasher(parameters: .init(logN: 10, blockSize: 8, parallelism: 1))
        return try CloudStore(configuration: configuration)
    }

    /// Results as compared across stores: download URLs are made at each read, so they are left out.
    static func comparable(_ results: [RecordResult]) -> [RecordResult] {
        results.map { result in
            guard case .record(var record) = result else { return result }
            for (name, value) in record.fields {
                if case .asset(var asset) = value {
                    asset.downloadURL = nil
                    record.fields[name] = .asset(asset)
                }
            }
            return .record(record)
        }
    }

    static func names(_ results: [RecordResult]) -> [String] {
        results.map { result in
            switch result {
            case .record(let record): record.recordName
            case .deleted(let name, _): "deleted " + name
            case .withheld(let name, _, _): "withheld " + name
            case .failure(let name, let error): "failed \(name ?? ""): \(error)"
            }
        }
    }

    @Test func aCopiedStoreServesTheSameDataAndContinuesTheSQLiteStoresTokens() throws {
        let source = try Self.makeSource()
        let container = source.container
        // What the SQLite store answers, read before the copy.
        let publicFeed = try source.publicDatabase().zoneChanges(syncToken: nil)
        let publicSinceMid = try source.publicDatabase().zoneChanges(syncToken: source.publicMidToken)
        let workFeed = try source.alicePrivate().zoneChanges(zoneName: "Work", syncToken: nil)
        let workSinceMid = try source.alicePrivate().zoneChanges(zoneName: "Work", syncToken: source.workMidToken)
        let zonesSinceMid = try source.alicePrivate().databaseChanges(syncToken: source.databaseMidToken)
        let tripsFeed = try source.alicePrivate().zoneChanges(zoneName: "Trips", syncToken: nil)
        let query = QueryRequest(
            query: Query(
                recordType: "Note", filters: [QueryFilter(.field("count"), .greaterThan, .int64(0))],
                sorts: [QuerySort(.field("count"), ascending: false)]))
        let queried = try source.publicDatabase().query(query).records.map(\.recordName)
        let listQuery = QueryRequest(
            query: Query(recordType: "Note", filters: [QueryFilter(.field("tags"), .listContains, .string("tag1"))]))
        let listed = Set(try source.publicDatabase().query(listQuery).records.map(\.recordName))
        let searchQuery = QueryRequest(
            query: Query(recordType: "Note", filters: [QueryFilter(.field("title"), .containsAllTokens, .string("CAFE newline"))]))
        let searched = Set(try source.publicDatabase().query(searchQuery).records.map(\.recordName))
        let queuedNotification = try #require(try source.store.oldestNotification(for: source.pushToken)).notification
        #expect(publicSinceMid.records.count == 4 && !searched.isEmpty && !listed.isEmpty && queried.count > 3)

        let database = try TestPostgres.makeDatabase()
        let report = try StoreMigration(from: source.temporary.directory, to: database.url).run()
        #expect(report.mismatches.isEmpty)
        #expect(report.tables.allSatisfy { $0.sourceRows == $0.targetRows && $0.sourceChecksum == $0.targetChecksum })
        let development = "\(container.rawValue) development"
        // Twelve notes, one with a file and one by bob, two deleted; four items in Work, two in Trips.
        #expect(report.rows(development, "records") == 12 + 1 + 1 - 2 + 4 + 2)
        #expect(report.rows(development, "shares") == 1)
        #expect(report.rows("request log", "requests") == 30 && report.rows("request log", "usage_minutes") >= 1)
        #expect(report.rows(development, "zones") >= 3)
        #expect(
            report.rows("catalog", "users") == 2 && report.rows("catalog", "containers") == 1 && report.rows("catalog", "operators") == 1)
        #expect(report.rows(development, "notifications") >= 1 && report.rows(development, "share_participants") >= 1)
        #expect(report.scopes == ["catalog", development, "\(container.rawValue) production", "request log"])

        let postgres = try Self.openOnPostgres(database, source: source)
        // The same records, change tags, creators, modifiers and times, zone by zone.
        #expect(
            Self.comparable(try source.publicDatabase(postgres).zoneChanges(syncToken: nil).records) == Self.comparable(publicFeed.records))
        #expect(try source.alicePrivate(postgres).zoneChanges(zoneName: "Work", syncToken: nil).records == workFeed.records)
        #expect(try source.alicePrivate(postgres).zoneChanges(zoneName: "Trips", syncToken: nil).records == tripsFeed.records)
        #expect(try source.alicePrivate(postgres).zones().map(\.zoneID) == (try source.alicePrivate().zones().map(\.zoneID)))
        // Indexes were made from the copied records: sorted, list and word queries find the same.
        #expect(try source.publicDatabase(postgres).query(query).records.map(\.recordName) == queried)
        #expect(Set(try source.publicDatabase(postgres).query(listQuery).records.map(\.recordName)) == listed)
        #expect(Set(try source.publicDatabase(postgres).query(searchQuery).records.map(\.recordName)) == searched)
        #expect(try postgres.schema(container, .production) == (try source.store.schema(container, .production)))
        #expect(try postgres.schemaDeployments(container).count == 1)
        #expect(try postgres.limits(of: container, .development) == (try source.store.limits(of: container, .development)))
        #expect(try postgres.oldestNotification(for: source.pushToken)?.notification == queuedNotification)
        let calls = try postgres.requestLog.entries(RequestLogFilter(limit: 100))
        #expect(calls == (try source.store.requestLog.entries(RequestLogFilter(limit: 100))))
        #expect(calls.map(\.id) == Array((1...30).reversed()))

        // Tokens the SQLite store issued continue: the same answers as there, then only what changed since.
        let sinceMid = try source.publicDatabase(postgres).zoneChanges(syncToken: source.publicMidToken)
        #expect(Self.names(sinceMid.records) == Self.names(publicSinceMid.records))
        #expect(
            try source.alicePrivate(postgres).zoneChanges(zoneName: "Work", syncToken: source.workMidToken).records == workSinceMid.records)
        #expect(try source.alicePrivate(postgres).databaseChanges(syncToken: source.databaseMidToken).zones == zonesSinceMid.zones)
        _ = try source.publicDatabase(postgres).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "after", recordType: "Note", fields: ["title": .string("After the move")]),
                RecordOperation(.forceDelete, recordName: "note-4", recordType: "Note", fields: [:]),
            ]))
        let afterMove = try source.publicDatabase(postgres).zoneChanges(syncToken: source.publicToken)
        #expect(Self.names(afterMove.records) == ["after", "deleted note-4"])
        #expect(try source.publicDatabase(postgres).zoneChanges(syncToken: afterMove.syncToken).records.isEmpty)
        _ = try source.alicePrivate(postgres).modifyZones([ZoneOperation(.create, zoneName: "Later")])
        let zonesAfter = try source.alicePrivate(postgres).databaseChanges(syncToken: source.databaseToken)
        #expect(
            zonesAfter.zones.map { result -> String in
                if case .zone(let zone) = result { return zone.zoneID.zoneName }
                return "\(result)"
            } == ["Later"])

        // Credentials still authenticate.
        #expect(try postgres.apiToken(source.apiToken.token) == source.apiToken)
        #expect(try postgres.session(forWebAuthToken: source.webAuthToken, in: container, .development).userRecordName == source.alice)
        #expect(try postgres.signIn(container, .development, name: "bob", password: "a long passphrase").user.userRecordName == source.bob)
        #expect(try postgres.managementToken(text: source.managementToken).name == "scripts")
        _ = try postgres.signInOperator("root-admin", password: "a long operator password", clientAddress: nil)
        #expect(try postgres.serverKeys(container).map(\.name) == ["backend"])
    }

    @Test func theTrashAndTheHistoryComeAlongAndRestoreOnTheTarget() throws {
        let source = try Self.makeSource()
        let container = source.container
        let alicePrivate = try source.alicePrivate()
        let alice = DatabaseID.private(source.alice)
        // A zone deleted with its records, whose token must never read a zone made after the move.
        _ = try alicePrivate.modifyZones([ZoneOperation(.create, zoneName: "Old")])
        _ = try alicePrivate.modify(
            ModifyRequest(
                operations: (0..<3).map {
                    RecordOperation(.create, recordName: "old-\($0)", recordType: "Item", fields: ["title": .string("Old \($0)")])
                }, zoneName: "Old"))
        let oldToken = try alicePrivate.zoneChanges(zoneName: "Old", syncToken: nil).syncToken
        _ = try alicePrivate.modifyZones([ZoneOperation(.delete, zoneName: "Old")])
        try source.store.setHistoryRetention(9 * 86_400_000, container, .development, by: .local)

        func trash(_ store: CloudStore, _ database: DatabaseID) throws -> Trash {
            try store.trash(container, .development, in: HistoryScope(database: database), by: .local)
        }
        func history(_ store: CloudStore, _ name: String, _ zone: String, _ database: DatabaseID) throws -> RecordHistory {
            try store.history(ofRecord: name, zoneName: zone, in: database, container, .development, by: .local)
        }
        let publicTrash = try trash(source.store, .public)
        let aliceTrash = try trash(source.store, alice)
        let noteHistory = try history(source.store, "note-1", ZoneID.defaultZoneName, .public)
        let itemHistory = try history(source.store, "item-0", "Work", alice)
        let historyBytes = try source.store.usage(of: container, .development).historyBytes
        #expect(publicTrash.records.map(\.record.recordName).sorted() == ["note-2", "note-3"])
        #expect(aliceTrash.zones.map(\.zoneName).sorted() == ["Home", "Old"] && aliceTrash.records.count == 3 + 1)
        #expect(noteHistory.entries.count == 1 && itemHistory.entries.count == 1 && historyBytes > 0)

        let database = try TestPostgres.makeDatabase()
        let report = try StoreMigration(from: source.temporary.directory, to: database.url).run()
        #expect(report.mismatches.isEmpty)
        let development = "\(container.rawValue) development"
        // note-1 updated, note-2 and note-3 deleted; item-0 updated, item-4 deleted, trip updated by
        // its share, Old's three records deleted with it.
        #expect(report.rows(development, "record_history") == 3 + 3 + 3)
        #expect(report.rows(development, "zone_trash") == 2)

        let postgres = try Self.openOnPostgres(database, source: source)
        // The same versions, with who replaced them, when and through what; the same zones.
        #expect(try trash(postgres, .public) == publicTrash)
        #expect(try trash(postgres, alice) == aliceTrash)
        #expect(try history(postgres, "note-1", ZoneID.defaultZoneName, .public) == noteHistory)
        #expect(try history(postgres, "item-0", "Work", alice) == itemHistory)
        #expect(try postgres.usage(of: container, .development).historyBytes == historyBytes)
        #expect(try postgres.historyRetention(container, .development) == (9 * 86_400_000, false))

        // A restore on the target brings the zone back with its records, and a deleted record.
        let zone = try postgres.restoreFromTrash(container, .development, in: HistoryScope(database: alice, zoneName: "Old"), by: .local)
        #expect(zone.zonesRestored == ["Old"] && zone.restored == 3)
        let restored = try source.alicePrivate(postgres).lookup((0..<3).map { RecordLookup("old-\($0)") }, zoneName: "Old")
        #expect(restored.map { $0.record?.fields["title"] } == (0..<3).map { .string("Old \($0)") })
        #expect(throws: CloudStoreError.self) { try source.alicePrivate(postgres).zoneChanges(zoneName: "Old", syncToken: oldToken) }
        let note = try postgres.restoreFromTrash(
            container, .development, in: HistoryScope(database: .public), recordNames: ["note-2"], by: .local)
        #expect(note.restored == 1)
        #expect(
            try source.publicDatabase(postgres).lookup([RecordLookup("note-2")]).first?.record?.fields
                == publicTrash.records.first {
                    $0.record.recordName == "note-2"
                }?.record.fields)
        // New versions are numbered after the copied ones.
        #expect(try trash(postgres, .public).records.map(\.record.recordName) == ["note-3"])
        _ = try source.publicDatabase(postgres).modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "note-5")]))
        let after = try trash(postgres, .public).records
        #expect(after.map(\.record.recordName) == ["note-5", "note-3"] && after[0].id > publicTrash.records.map(\.id).max()!)
    }

    /// A deleted record's blob, held by its version in the trash, is held on the target too:
    /// the copy's collection keeps it, and the record restored there downloads it.
    @Test func aTrashedRecordsBlobIsHeldOnTheTarget() throws {
        let source = try Self.makeSource()
        _ = try source.publicDatabase().modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "with-file")]))
        let database = try TestPostgres.makeDatabase()
        let report = try StoreMigration(from: source.temporary.directory, to: database.url).run()
        #expect(report.mismatches.isEmpty)
        #expect(report.rows("\(source.container.rawValue) development", "history_assets") == 1)

        let postgres = try Self.openOnPostgres(database, source: source)
        #expect(try postgres.collectUnreferencedAssets(source.container, .development, createdBefore: .max) == 0)
        let restored = try postgres.restoreFromTrash(
            source.container, .development, in: HistoryScope(database: .public), recordNames: ["with-file"], by: .local)
        #expect(restored.restored == 1)
        let sha = SHA256.hash(data: Array("the file's bytes".utf8)).map { String(format: "%02x", $0) }.joined()
        let space = EnvironmentKey(container: source.container, environment: .development)
        #expect(try postgres.assetStore.read(sha, in: space) == Array("the file's bytes".utf8), "the blob is still there")
    }

    @Test func aTargetHoldingAStoreIsRefusedAndLeftAsItWas() throws {
        let source = try Self.makeSource()
        let database = try TestPostgres.makeDatabase()
        var configuration = CloudStoreConfiguration(
            dataDirectory: FileManager.default.temporaryDirectory.appendingPathComponent("cumulus-test-\(UUID().uuidString)").path)
        configuration.database = .postgres(url: database.url)
        let existing = try CloudStore(configuration: configuration)
        _ = try existing.createContainer(ContainerIdentifier("iCloud.com.example.Other"))
        do {
            try StoreMigration(from: source.temporary.directory, to: database.url).run()
            Issue.record("copied into a database holding a store")
        } catch let error as CloudStoreError {
            guard case .exists(let reason) = error else { throw error }
            #expect(reason.contains("already holds a store") && reason.contains("containers"))
        }
        let raw = try RawPostgres(url: database.url)
        #expect(try raw.execute("SELECT container FROM catalog.containers") == [["iCloud.com.example.Other"]])
        #expect(try raw.execute("SELECT count(*) FROM catalog.users") == [["0"]])
        let schemas = try raw.execute("SELECT nspname FROM pg_namespace WHERE nspname LIKE 'development\\_%' ORDER BY 1")
        #expect(schemas == [[PostgresStorageBackend.environmentSchema(try ContainerIdentifier("iCloud.com.example.Other"), .development)]])
    }

    @Test func aDataDirectoryWithoutAStoreIsRefused() throws {
        let database = try TestPostgres.makeDatabase()
        let empty = try TemporaryDirectory()
        #expect(throws: CloudStoreError.notFound("The data directory \(empty.path)/missing does not exist")) {
            try StoreMigration(from: empty.path + "/missing", to: database.url).run()
        }
        #expect(throws: CloudStoreError.notFound("The data directory \(empty.path) holds no store (it has no cumulus.sqlite)")) {
            try StoreMigration(from: empty.path, to: database.url).run()
        }
        #expect(!FileManager.default.fileExists(atPath: empty.path + "/cumulus.sqlite"), "nothing was made in the directory")
        #expect(try RawPostgres(url: database.url).execute("SELECT count(*) FROM pg_namespace WHERE nspname = 'catalog'") == [["0"]])
    }

    @Test func anUnreachableOrRefusingDatabaseIsReportedWithoutItsPassword() throws {
        let source = try Self.makeSource()
        let server = try TestPostgres.serverURL()
        // The test cluster trusts loopback, so a role it does not know stands for a wrong password.
        let unknownRole = server.replacingOccurrences(of: "cumulus@", with: "intruder:Pa55-w0rd-wrong@")
        let closedPort = "postgres://cumulus:Pa55-w0rd-wrong@127.0.0.1:1/cumulus"
        for url in [unknownRole, closedPort] {
            do {
                try StoreMigration(from: source.temporary.directory, to: url).run()
                Issue.record("copied into \(DatabaseLocation.postgres(url: url))")
            } catch let error as CloudStoreError {
                #expect(error.reason.contains("Cannot connect to PostgreSQL"))
                #expect(!error.reason.contains("Pa55-w0rd-wrong"))
            }
        }
    }
}
