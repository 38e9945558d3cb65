import Foundation
import TestSupport
import Testing

@testable import CloudStore

/// Privacy tools in the store: operators' reads of users' records in the audit trail, a per-user
/// export holding exactly that user's data, and a per-user erasure that leaves none of it while
/// other users' devices learn of the deletions; on SQLite and on PostgreSQL.
@Suite struct UserPrivacyTests {
    /// Alice (who is exported and erased), bob and carol. Alice has a zone `Trips` shared with bob
    /// (who accepted), a diary in her default zone, public notes and tags; bob has public notes, and
    /// a zone `Bob` shared with alice in which she wrote one record; alice subscribes in public.
    struct Fixture {
        let store: TemporaryStore
        let alice: String
        let bob: String
        let carol: String

        init() throws {
            let store = try TemporaryStore()
            self.store = store
            try store.importSchema(
                """
                DEFINE SCHEMA
                    RECORD TYPE Item ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ, CREATE, WRITE TO "_creator");
                    RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE,
                        GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
                    RECORD TYPE Tag ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE,
                        GRANT READ TO "_world", GRANT CREATE TO "_icloud", GRANT WRITE TO "_creator");
                """)
            let users = try ["alice", "bob", "carol"].map { name in
                try store.store.addUser(store.container, name: name, password: "a long passphrase", emailAddress: "\(name)@example.com")
                    .userRecordName
            }
            (alice, bob, carol) = (users[0], users[1], users[2])
            let mine = try store.privateDatabase(of: alice)
            _ = try mine.modifyZones([ZoneOperation(.create, zoneName: "Trips")])
            try expectSaved(
                mine.modify(
                    ModifyRequest(
                        operations: [
                            Self.create("trip", "Item"), Self.create("day1", "Item", parent: "trip"),
                            RecordOperation(
                                .create, recordName: "share-trip", recordType: Share.recordType,
                                share: ShareChange(
                                    rootRecordName: "trip", participants: [.init(emailAddress: "bob@example.com", permission: .readWrite)])),
                        ], zoneName: "Trips")))
            try expectSaved(mine.modify(ModifyRequest(operations: [Self.create("alice-diary", "Item")])))
            try accept(bob, owner: alice, zone: "Trips", share: "share-trip")
            let bobs = try store.privateDatabase(of: bob)
            _ = try bobs.modifyZones([ZoneOperation(.create, zoneName: "Bob")])
            try expectSaved(
                bobs.modify(
                    ModifyRequest(
                        operations: [
                            Self.create("bob-root", "Item"),
                            RecordOperation(
                                .create, recordName: "share-bob", recordType: Share.recordType,
                                share: ShareChange(
                                    rootRecordName: "bob-root",
                                    participants: [.init(emailAddress: "alice@example.com", permission: .readWrite)])),
                        ], zoneName: "Bob")))
            try accept(alice, owner: bob, zone: "Bob", share: "share-bob")
            let aliceInBob = try store.store.database(store.container, .development, .shared, as: .user(alice)).reaching(owner: bob)
            try expectSaved(
                aliceInBob.modify(ModifyRequest(operations: [Self.create("alice-in-bob", "Item", parent: "bob-root")], zoneName: "Bob")))
            try expectSaved(
                publicDatabase(alice).modify(
                    ModifyRequest(operations: [
                        Self.create("alice-note-1", "Note"), Self.create("alice-note-2", "Note"), Self.create("alice-tag", "Tag"),
                    ])))
            try expectSaved(publicDatabase(bob).modify(ModifyRequest(operations: [Self.create("bob-note", "Note")])))
            let subscribed = try publicDatabase(alice).modifySubscriptions([
                SubscriptionOperation(
                    .create,
                    Subscription(
                        subscriptionID: "alice-notes",
                        kind: .query(Query(recordType: "Note"), zoneName: nil, firesOn: [.create], firesOnce: false)))
            ])
            #expect(subscribed.count == 1 && subscribed.allSatisfy { if case .failure = $0 { false } else { true } }, "\(subscribed)")
        }

        static func create(_ name: String, _ type: String, parent: String? = nil) -> RecordOperation {
            RecordOperation(
                .create, recordName: name, recordType: type, fields: ["title": .string(name)], parent: parent.map { .some($0) } ?? nil)
        }

        func publicDatabase(_ user: String) throws -> CloudDatabase { try store.database(.development, .public, as: .user(user)) }

        func accept(_ user: String, owner: String, zone: String, share: String) throws {
            let stored = try store.store.environment(store.container, .development).read { reader in
                try reader.zone(named: zone, in: .private(owner)).map { try reader.shares(in: $0) } ?? []
            }
            let guid = try #require(stored.first { $0.recordName == share }?.shortGUID)
            _ = try store.store.acceptShares([ShareLookup(shortGUID: guid)], store.container, .development, as: .user(user))
        }

        func expectSaved(_ results: [RecordResult], sourceLocation: SourceLocation = #_sourceLocation) throws {
            for result in results where result.error != nil { Issue.record("\(result)", sourceLocation: sourceLocation) }
        }

        /// Every record name of every zone of the environment, by database and zone, with its creator.
        func everything() throws -> [(place: String, name: String, creator: String)] {
            try store.store.environment(store.container, .development).read { reader in
                var found: [(String, String, String)] = []
                for database in [DatabaseID.public, .private(alice), .private(bob), .private(carol)] {
                    var zones = try reader.zones(in: database)
                    if let defaultZone = try reader.zone(named: ZoneID.defaultZoneName, in: database),
                        !zones.contains(where: { $0.zoneID == defaultZone.zoneID })
                    {
                        zones.append(defaultZone)
                    }
                    for zone in zones {
                        try CloudStore.eachRecord(in: zone, ofType: nil, reader: reader) { stored in
                            found.append(
                                ("\(database) \(zone.zoneID.zoneName)", stored.record.recordName, stored.record.created.userRecordName))
                        }
                    }
                }
                return found
            }
        }
    }

    /// Lines naming each record and subscription, enough to tell whose data an archive holds.
    struct NamesEncoder: UserExportEncoder {
        func line(_ record: Record) -> [UInt8] { Array("record \(record.recordName) by \(record.created.userRecordName)".utf8) }
        func line(_ subscription: Subscription, in database: DatabaseID) -> [UInt8] {
            Array("subscription \(subscription.subscriptionID) in \(database)".utf8)
        }
        func profile(_ user: AppUser) -> [UInt8] { Array("profile \(user.name)".utf8) }
    }

    /// The members of a tar archive, by name.
    static func members(of path: String) throws -> [String: String] {
        let bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        var members: [String: String] = [:]
        var offset = 0
        while offset + 512 <= bytes.count, let header = try BackupTarHeader.read(Array(bytes[offset..<offset + 512])) {
            let size = Int(header.size)
            members[header.name] = String(decoding: bytes[(offset + 512)..<(offset + 512 + size)], as: UTF8.self)
            offset += 512 + (size + 511) / 512 * 512
        }
        return members
    }

    static let owner = OperatorIdentity.session(operatorName: "olga", sessionID: "s1", client: "127.0.0.1")

    @Test func theExportHoldsExactlyThatUsersData() throws {
        let fixture = try Fixture()
        let directory = try TemporaryDirectory()
        let path = directory.path + "/alice.tar"
        let summary = try fixture.store.store.exportUser(
            fixture.alice, in: fixture.store.container, environments: [.development], to: path, encoder: NamesEncoder(), by: .local)
        let members = try Self.members(of: path)
        let (a, b) = (fixture.alice, fixture.bob)
        #expect(members["user.json"] == "profile alice")
        #expect(members["development/private/Trips.jsonl"] == "record day1 by \(a)\nrecord trip by \(a)\nrecord share-trip by \(a)\n")
        #expect(members["development/private/_defaultZone.jsonl"] == "record alice-diary by \(a)\n")
        #expect(
            members["development/public/_defaultZone.jsonl"]
                == "record alice-note-1 by \(a)\nrecord alice-note-2 by \(a)\nrecord alice-tag by \(a)\n")
        #expect(members["development/shared/\(b)/Bob.jsonl"] == "record alice-in-bob by \(a)\n")
        #expect(members["development/subscriptions.jsonl"] == "subscription alice-notes in public\n")
        #expect(members.count == 6, "\(members.keys.sorted())")
        // Nothing of bob's (or carol's) is in it.
        for content in members.values {
            #expect(!content.contains("bob-"))
            #expect(!content.contains(" by \(b)") && !content.contains(fixture.carol))
        }
        #expect(summary.records == 8 && summary.subscriptions == 1)
        let audit = try fixture.store.store.auditEntries(AuditFilter(action: "user.export"))
        #expect(audit.count == 1 && audit.first?.target.hasPrefix("alice (\(a))") == true)
    }

    @Test func theExportCarriesTheFilesOfTheUsersAssetsAndNoOneElses() throws {
        let store = try TemporaryStore()
        try store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Photo ("___recordID" REFERENCE QUERYABLE, file ASSET, GRANT READ, CREATE, WRITE TO "_creator");
            """)
        var users: [String] = []
        for (name, content) in [("alice", "alice's photo"), ("bob", "bob's photo")] {
            let user = try store.store.addUser(store.container, name: name, password: "a long passphrase").userRecordName
            users.append(user)
            let database = try store.privateDatabase(of: user)
            let ticket = try #require(
                try database.assetUploadTickets([AssetUploadRequest(recordName: "\(name)-photo", recordType: "Photo", fieldName: "file")])
                    .first)
            let uploaded = try store.store.uploadAsset(ticket: ticket.ticket, content: Array(content.utf8))
            _ = try database.create(
                "Photo", "\(name)-photo",
                ["file": .asset(Asset(fileChecksum: uploaded.fileChecksum, size: uploaded.size, receipt: uploaded.receipt))])
        }
        let directory = try TemporaryDirectory()
        let path = directory.path + "/alice.tar"
        let summary = try store.store.exportUser(users[0], in: store.container, to: path, encoder: NamesEncoder(), by: .local)
        let members = try Self.members(of: path)
        let assets = members.filter { $0.key.hasPrefix("assets/") }
        #expect(assets.count == 1 && assets.first?.value == "alice's photo", "\(members.keys.sorted())")
        #expect(summary.assets == 1 && summary.records == 1)
        #expect(members["development/private/_defaultZone.jsonl"] == "record alice-photo by \(users[0])\n")
    }

    @Test func theEraseLeavesNoneOfTheUsersDataAndOtherUsersFeedsShowTheDeletions() throws {
        let fixture = try Fixture()
        let (store, c, a, b) = (fixture.store.store, fixture.store.container, fixture.alice, fixture.bob)
        store.requestLog.record(
            RequestLogEntry(
                time: store.now, container: c.rawValue, environment: "development", database: "private", operation: "records/query",
                user: a,
                clientAddress: "127.0.0.1", status: 200, serverErrorCode: nil, durationMicroseconds: 1, bytesIn: 1, bytesOut: 1,
                requestID: "r1"))
        // Bob's refused write, whose access trace names alice as the record's creator.
        var refused = RequestLogEntry(
            time: store.now, container: c.rawValue, environment: "development", database: "public", operation: "records/modify", user: b,
            clientAddress: "127.0.0.1", status: 200, serverErrorCode: nil, durationMicroseconds: 1, bytesIn: 1, bytesOut: 1,
            requestID: "r2")
        refused.trace = [
            .refusal(caller: "user(\(b))", database: "public", rule: #"GRANT WRITE TO "_creator""#, why: "\(a) created the record")
        ]
        store.requestLog.record(refused)
        let bobsPublicToken = try fixture.publicDatabase(b).zoneChanges(syncToken: nil).syncToken
        let bobsShared = try store.database(c, .development, .shared, as: .user(b))
        let bobsSharedBefore = try bobsShared.databaseChanges(syncToken: nil)
        #expect(bobsSharedBefore.zones.contains { { if case .zone(let zone) = $0 { zone.zoneID.zoneName == "Trips" } else { false } }($0) })
        let bobsZoneToken = try fixture.store.privateDatabase(of: b).zoneChanges(zoneName: "Bob", syncToken: nil).syncToken
        let before = try fixture.everything()

        let dryRun = try store.eraseUser(a, in: c, environments: [.development], dryRun: true, by: .local)
        let counts = try #require(dryRun.environments[.development])
        #expect(counts.privateZones == 2 && counts.privateRecords == 4 && counts.shares == 1)
        #expect(counts.participations == 1 && counts.publicRecordsDeleted == 3 && counts.sharedRecords == 1)
        #expect(counts.subscriptions == 1 && dryRun.requestLogEntries == 1 && !dryRun.accountRemoved)
        #expect(try fixture.everything().map(\.name) == before.map(\.name), "a dry run changes nothing")

        let erased = try store.eraseUser(a, in: c, dryRun: false, by: .local)
        #expect(erased.accountRemoved && erased.requestLogEntries == 1)
        // Table by table, through the store's reads: nothing of alice's is left.
        let left = try fixture.everything()
        #expect(left.filter { $0.creator == a || $0.place.contains(a) }.map(\.name) == [])
        #expect(Set(left.map(\.name)) == ["bob-note", "bob-root"])
        let leftovers = try store.environment(c, .development).read { reader -> [Int] in
            var counts: [Int] = []
            counts.append(try reader.zones(in: .private(a)).filter { $0.zoneID.zoneName != ZoneID.defaultZoneName }.count)
            counts.append(try reader.versions(matching: VersionFilter(database: .private(a)), limit: 100).count)
            let publicVersions = try reader.versions(matching: VersionFilter(database: .public), limit: 100)
            counts.append(publicVersions.filter { $0.record.created.userRecordName == a }.count)
            counts.append(try reader.trashedZones(in: .private(a)).count)
            counts.append(try reader.allSubscriptions().filter { $0.user == a }.count)
            let shares = try reader.allShares()
            counts.append(shares.filter { share in share.participants.contains { $0.userRecordName == a } }.count)
            counts.append(try reader.zonesShared(with: a).count)
            return counts
        }
        #expect(
            leftovers == [0, 0, 0, 0, 0, 0, 0],
            "zones, private versions, public versions, trashed zones, subscriptions, shares, shared zones")
        #expect(try store.user(a, in: c) == nil)
        #expect(try store.requestLog.entries(RequestLogFilter(container: c.rawValue, user: a)).isEmpty)
        #expect(
            try store.requestLog.entries(RequestLogFilter(container: c.rawValue, user: erased.anonymousName)).map(\.requestID) == ["r1"])
        let bobsCall = try #require(try store.requestLog.entries(RequestLogFilter(container: c.rawValue, requestID: "r2")).first)
        #expect(bobsCall.user == b, "another user's call stays theirs")
        let anonymous = try #require(erased.anonymousName)
        #expect(bobsCall.trace.first?.checks.first?.why == "\(anonymous) created the record", "and its trace no longer names alice")
        // Other users' devices learn of the deletions: tombstones in bob's public and shared feeds.
        let publicFeed = try fixture.publicDatabase(b).zoneChanges(syncToken: bobsPublicToken)
        #expect(
            Set(publicFeed.records.compactMap { if case .deleted(let name, _) = $0 { name } else { nil } }) == [
                "alice-note-1", "alice-note-2", "alice-tag",
            ])
        // The shared database lists the zones shared now: alice's is gone from bob's.
        let sharedFeed = try bobsShared.databaseChanges(syncToken: bobsSharedBefore.syncToken)
        #expect(!sharedFeed.zones.contains { { if case .zone(let zone) = $0 { zone.zoneID.zoneName == "Trips" } else { false } }($0) })
        let bobsZoneFeed = try fixture.store.privateDatabase(of: b).zoneChanges(zoneName: "Bob", syncToken: bobsZoneToken)
        #expect(bobsZoneFeed.records.contains { if case .deleted("alice-in-bob", _) = $0 { true } else { false } })
        let audit = try store.auditEntries(AuditFilter(action: "user.erase"))
        #expect(audit.count == 1 && audit.first?.target.contains("account removed") == true)
    }

    @Test func publicRecordsOfATypeCanGoToAnotherUser() throws {
        let fixture = try Fixture()
        let (store, c, a) = (fixture.store.store, fixture.store.container, fixture.alice)
        let token = try fixture.publicDatabase(fixture.bob).zoneChanges(syncToken: nil).syncToken
        let erased = try store.eraseUser(a, in: c, reassigning: ["Tag": fixture.carol], dryRun: false, by: .local)
        #expect(erased.environments[.development]?.publicRecordsReassigned == 1)
        let left = try fixture.everything()
        #expect(left.first { $0.name == "alice-tag" }?.creator == fixture.carol)
        let feed = try fixture.publicDatabase(fixture.bob).zoneChanges(syncToken: token)
        #expect(feed.records.contains { $0.record?.recordName == "alice-tag" })
    }

    @Test func theWrongOperatorIsRefusedAndNothingChanges() throws {
        let fixture = try Fixture()
        let (store, c, a) = (fixture.store.store, fixture.store.container, fixture.alice)
        _ = try store.addOperator("vera", password: "a long passphrase", role: .viewer)
        _ = try store.addOperator("dev", password: "a long passphrase", role: .developer)
        let viewer = OperatorIdentity.session(operatorName: "vera", sessionID: "s", client: nil)
        let developer = OperatorIdentity.session(operatorName: "dev", sessionID: "s", client: nil)
        let before = try fixture.everything().map(\.name)
        #expect(throws: CloudStoreError.self) { try store.eraseUser(a, in: c, dryRun: true, by: viewer) }
        #expect(throws: CloudStoreError.self) { try store.eraseUser(a, in: c, dryRun: false, by: developer) }
        #expect(throws: CloudStoreError.self) {
            try store.exportUser(a, in: c, to: "/dev/null", encoder: NamesEncoder(), by: viewer)
        }
        #expect(try fixture.everything().map(\.name) == before)
        #expect(try store.user(a, in: c) != nil)
        #expect(try store.auditEntries(AuditFilter(action: "user.")).allSatisfy { $0.action == "user.add" })
        // A developer erases development only; the account stays.
        let erased = try store.eraseUser(a, in: c, environments: [.development], dryRun: false, by: developer)
        let kept = try store.user(a, in: c)
        #expect(!erased.accountRemoved && kept != nil)
    }

    @Test func operatorsReadsOfUsersRecordsAreAudited() throws {
        let fixture = try Fixture()
        let (store, c, a) = (fixture.store.store, fixture.store.container, fixture.alice)
        var handle = try store.database(c, .development, database: .private(a), as: .operator())
        handle.auditActor = Self.owner
        handle.auditPlace = "private of alice"
        _ = try handle.lookup([RecordLookup("trip"), RecordLookup("day1")], zoneName: "Trips")
        _ = try handle.listRecords(zoneName: ZoneID.defaultZoneName, limit: 10)
        _ = try handle.lookup([RecordLookup("trip", desiredKeys: [])], zoneName: "Trips")
        // The public database, and CloudKit's clients, are not audited.
        var open = try store.database(c, .development, database: .public, as: .operator())
        open.auditActor = Self.owner
        _ = try open.lookup([RecordLookup("alice-note-1")])
        _ = try fixture.store.privateDatabase(of: a).lookup([RecordLookup("trip")], zoneName: "Trips")
        _ = try store.history(ofRecord: "trip", zoneName: "Trips", in: .private(a), c, .development, by: Self.owner)
        let reads = try store.auditEntries(AuditFilter(action: "record.read"))
        #expect(
            reads.map(\.target).reversed() == [
                "private of alice Trips: trip, day1", "private of alice _defaultZone: alice-diary",
                "history of private of \(a) Trips: trip",
            ])
        #expect(reads.allSatisfy { $0.operatorName == "olga" && $0.container == c.rawValue && $0.environment == "development" })
    }
}
