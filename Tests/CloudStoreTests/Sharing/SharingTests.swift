import TestSupport
import Testing

@testable import CloudStore

/// Sharing: a record hierarchy or a whole zone of alice's private database, given to bob and
/// reached through his shared database; what participants may read and write, what strangers
/// never see, and that a change to a share takes effect at once.
@Suite struct SharingTests {
    /// Alice's zone `Trips` with a shared root `trip`, its child `day1` and grandchild `photo1`,
    /// and `other`, outside the hierarchy; bob and carol have accounts.
    struct Fixture {
        let store: TemporaryStore
        let alice: String
        let bob: String
        let carol: String
        /// The share of `trip`, as its creation answered.
        var share: Share

        init(bobPermission: SharePermission = .readOnly, publicPermission: SharePermission? = nil) throws {
            store = try TemporaryStore()
            try store.importSchema(
                """
                DEFINE SCHEMA
                    RECORD TYPE Item ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ, CREATE, WRITE TO "_creator");
                """)
            alice = try store.store.addUser(store.container, name: "alice", password: "a long passphrase").userRecordName
            bob = try store.store.addUser(store.container, name: "bob", password: "a long passphrase", emailAddress: "Bob@Example.com")
                .userRecordName
            carol = try store.store.addUser(store.container, name: "carol", password: "a long passphrase").userRecordName
            let owner = try store.privateDatabase(of: alice)
            _ = try owner.modifyZones([ZoneOperation(.create, zoneName: "Trips")])
            try Self.expectSaved(
                try owner.modify(
                    ModifyRequest(
                        operations: [
                            RecordOperation(.create, recordName: "trip", recordType: "Item", fields: ["title": .string("Lisbon")]),
                            RecordOperation(
                                .create, recordName: "day1", recordType: "Item", fields: ["title": .string("Day one")],
                                parent: .some("trip")),
                            RecordOperation(
                                .create, recordName: "photo1", recordType: "Item", fields: ["title": .string("Tram")], parent: .some("day1")
                            ),
                            RecordOperation(.create, recordName: "other", recordType: "Item", fields: ["title": .string("Private")]),
                        ], zoneName: "Trips")))
            let saved = try owner.modify(
                ModifyRequest(
                    operations: [
                        RecordOperation(
                            .create, recordName: "share-trip", recordType: Share.recordType,
                            fields: ["cloudkit.title": .string("Lisbon trip")],
                            share: ShareChange(
                                rootRecordName: "trip", publicPermission: publicPermission,
                                participants: [
                                    .init(emailAddress: "bob@example.com", permission: bobPermission)
                                ]))
                    ], zoneName: "Trips"))
            share = try #require(saved.first?.record?.sharing, "\(saved)")
        }

        static func expectSaved(_ results: [RecordResult], sourceLocation: SourceLocation = #_sourceLocation) throws {
            for result in results where result.error != nil { Issue.record("\(result)", sourceLocation: sourceLocation) }
        }

        func owner() throws -> CloudDatabase { try store.privateDatabase(of: alice) }

        /// `user`'s shared database, reaching alice's zones.
        func shared(_ user: String) throws -> CloudDatabase {
            try store.store.database(store.container, .development, .shared, as: .user(user)).reaching(owner: alice)
        }

        func sharedDirectory(_ user: String) throws -> CloudDatabase {
            try store.store.database(store.container, .development, .shared, as: .user(user))
        }

        func resolve(_ user: String, fetchRoot: Bool = true) throws -> ShareResolution {
            try #require(
                try store.store.resolveShares(
                    [ShareLookup(shortGUID: share.shortGUID, fetchRootRecord: fetchRoot)], store.container, .development, as: .user(user)
                ).first)
        }

        func accept(_ user: String) throws -> ShareResolution {
            try #require(
                try store.store.acceptShares(
                    [ShareLookup(shortGUID: share.shortGUID, fetchRootRecord: true)], store.container, .development, as: .user(user)
                ).first)
        }

        func lookupNames(_ user: String, _ names: [String]) throws -> [String: String] {
            let results = try shared(user).lookup(names.map { RecordLookup($0) }, zoneName: "Trips")
            return Dictionary(
                uniqueKeysWithValues: zip(names, results).map { name, result in
                    (name, result.record != nil ? "record" : result.error.map { CloudKitCode.of($0) } ?? "deleted")
                })
        }

        /// Saves the share again with `participants`, as its owner.
        mutating func setParticipants(_ participants: [ShareChange.Invitation], publicPermission: SharePermission? = nil) throws {
            // Accepting changed the share since it was saved: its tag is read again.
            let current = try #require(try owner().lookup([RecordLookup(share.recordName)], zoneName: "Trips").first?.record)
            let results = try owner().modify(
                ModifyRequest(
                    operations: [
                        RecordOperation(
                            .update, recordName: share.recordName, recordChangeTag: current.changeTag,
                            share: ShareChange(publicPermission: publicPermission, participants: participants))
                    ], zoneName: "Trips"))
            share = try #require(results.first?.record?.sharing, "\(results)")
        }
    }

    /// A short name for an error's kind, for readable expectations.
    enum CloudKitCode {
        static func of(_ error: CloudStoreError) -> String {
            switch error {
            case .notFound: "NOT_FOUND"
            case .zoneNotFound: "ZONE_NOT_FOUND"
            case .accessDenied: "ACCESS_DENIED"
            case .badRequest: "BAD_REQUEST"
            case .conflict: "CONFLICT"
            case .authenticationRequired: "AUTHENTICATION_REQUIRED"
            default: "\(error)"
            }
        }
    }

    @Test func creatingAShareDescribesItAndMarksItsRoot() throws {
        let fixture = try Fixture()
        let share = fixture.share
        #expect(share.shortGUID.count == 25)
        #expect(share.rootRecordName == "trip")
        #expect(share.zoneID == ZoneID(zoneName: "Trips", ownerRecordName: fixture.alice))
        // Invited by address: who has it is not known until they accept.
        #expect(
            share.participants == [
                ShareParticipant(
                    userRecordName: nil, emailAddress: "bob@example.com", permission: .readOnly, type: .user, acceptanceStatus: .invited)
            ])
        #expect(share.allParticipants.first?.type == .owner)
        #expect(share.fields["cloudkit.title"] == .string("Lisbon trip"))

        let owner = try fixture.owner()
        let root = try #require(try owner.lookup([RecordLookup("trip")], zoneName: "Trips").first?.record)
        #expect(root.share == "share-trip")
        let child = try #require(try owner.lookup([RecordLookup("day1")], zoneName: "Trips").first?.record)
        #expect(child.share == nil)
        // The root changed: its change tag moved on, and the zone's feed says so.
        let feed = try owner.zoneChanges(zoneName: "Trips", syncToken: nil)
        #expect(feed.records.compactMap(\.record?.recordName).last == "trip")
        // The share is looked up by name like a record.
        let looked = try #require(try owner.lookup([RecordLookup("share-trip")], zoneName: "Trips").first?.record)
        #expect(looked.recordType == Share.recordType)
        #expect(looked.sharing?.shortGUID == share.shortGUID)
    }

    @Test func anInvitedParticipantSeesNothingUntilAccepting() throws {
        let fixture = try Fixture()
        #expect(try fixture.sharedDirectory(fixture.bob).zones().isEmpty)
        #expect(try fixture.lookupNames(fixture.bob, ["trip"]) == ["trip": "ZONE_NOT_FOUND"])

        guard case .resolved(let resolved) = try fixture.resolve(fixture.bob) else { Issue.record("not resolved"); return }
        #expect(resolved.participant.acceptanceStatus == .invited)
        #expect(resolved.participant.permission == .readOnly)
        #expect(resolved.databaseScope == .shared)
        #expect(resolved.owner?.userRecordName == fixture.alice)
        #expect(resolved.rootRecord == nil, "the root comes once bob may read it")

        guard case .resolved(let accepted) = try fixture.accept(fixture.bob) else { Issue.record("not accepted"); return }
        #expect(accepted.participant.acceptanceStatus == .accepted)
        #expect(accepted.rootRecord?.recordName == "trip")
        #expect(accepted.rootRecord?.fields["title"] == .string("Lisbon"))

        let zones = try fixture.sharedDirectory(fixture.bob).zones()
        #expect(zones.map(\.zoneID) == [ZoneID(zoneName: "Trips", ownerRecordName: fixture.alice)])
    }

    @Test func aParticipantReadsTheHierarchyAndNothingElse() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        #expect(
            try fixture.lookupNames(fixture.bob, ["trip", "day1", "photo1", "other", "share-trip"]) == [
                "trip": "record", "day1": "record", "photo1": "record", "other": "NOT_FOUND", "share-trip": "record",
            ])
        let shared = try fixture.shared(fixture.bob)
        let queried = try shared.query(QueryRequest(query: Query(recordType: "Item"), zoneName: "Trips"))
        #expect(Set(queried.records.map(\.recordName)) == ["trip", "day1", "photo1"])
        let feed = try shared.zoneChanges(zoneName: "Trips", syncToken: nil)
        #expect(Set(feed.records.compactMap(\.record?.recordName)) == ["trip", "day1", "photo1"])
        #expect(feed.records.compactMap(\.record).first { $0.recordName == "trip" }?.share == "share-trip")
        // Zones list only what is shared; the default zone and other zones are not there.
        #expect(try shared.zones().map(\.zoneID.zoneName) == ["Trips"])
    }

    @Test func strangersSeeNothing() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        #expect(try fixture.lookupNames(fixture.carol, ["trip", "other"]) == ["trip": "ZONE_NOT_FOUND", "other": "ZONE_NOT_FOUND"])
        #expect(throws: CloudStoreError.self) { try fixture.shared(fixture.carol).zoneChanges(zoneName: "Trips", syncToken: nil) }
        #expect(try fixture.sharedDirectory(fixture.carol).zones().isEmpty)
        guard case .failure(_, let error) = try fixture.resolve(fixture.carol) else { Issue.record("resolved for a stranger"); return }
        #expect(CloudKitCode.of(error) == "NOT_FOUND")
        guard case .failure(_, let acceptError) = try fixture.accept(fixture.carol) else { Issue.record("accepted by a stranger"); return }
        #expect(CloudKitCode.of(acceptError) == "NOT_FOUND")
        #expect(throws: CloudStoreError.authenticationRequired("Resolving and accepting shares needs a signed-in user")) {
            try fixture.store.store.resolveShares(
                [ShareLookup(shortGUID: fixture.share.shortGUID)], fixture.store.container, .development, as: .world)
        }
        // Carol cannot reach alice's database as its owner, either.
        #expect(throws: CloudStoreError.self) {
            try fixture.store.store.database(
                fixture.store.container, .development, database: .private(fixture.alice), as: .user(fixture.carol))
        }
    }

    @Test func anInvitationByEmailTellsNothingOfWhoHasTheAddress() throws {
        var fixture = try Fixture()
        // bob has bob@example.com and is not discoverable; nobody has nobody@example.com. Both
        // invitations are answered alike, and neither names a user.
        try fixture.setParticipants([
            .init(emailAddress: "bob@example.com", permission: .readOnly), .init(emailAddress: "nobody@example.com", permission: .readOnly),
        ])
        #expect(fixture.share.participants.allSatisfy { $0.userRecordName == nil })
        let answers = fixture.share.participants.map { participant -> ShareParticipant in
            var participant = participant
            participant.emailAddress = "someone"
            return participant
        }
        #expect(answers.count == 2 && answers[0] == answers[1])
        // What the owner reads back later says no more.
        let stored = try #require(try fixture.owner().lookup([RecordLookup("share-trip")], zoneName: "Trips").first?.record?.sharing)
        #expect(stored.participants.allSatisfy { $0.userRecordName == nil } && stored.participants.count == 2)

        // The invitation binds when bob, who has the address, accepts it; no one else can.
        guard case .failure = try fixture.accept(fixture.carol) else { Issue.record("carol took bob's invitation"); return }
        guard case .resolved(let accepted) = try fixture.accept(fixture.bob) else { Issue.record("bob could not accept"); return }
        #expect(accepted.participant.acceptanceStatus == .accepted)
        #expect(try fixture.lookupNames(fixture.bob, ["trip"]) == ["trip": "record"])
        let bound = try #require(try fixture.owner().lookup([RecordLookup("share-trip")], zoneName: "Trips").first?.record?.sharing)
        #expect(bound.participants.map(\.userRecordName) == [fixture.bob, nil])
        #expect(bound.participants.map(\.emailAddress) == ["bob@example.com", "nobody@example.com"])

        // Listed again by the same address, bob keeps his place.
        try fixture.setParticipants([.init(emailAddress: "BOB@example.com", permission: .readWrite)])
        #expect(fixture.share.participants.first?.userRecordName == fixture.bob)
        #expect(fixture.share.participants.first?.acceptanceStatus == .accepted)
        #expect(fixture.share.participants.first?.permission == .readWrite)
        #expect(fixture.share.participants.last?.acceptanceStatus == .removed)

        // Text that is no address is refused whoever might have it.
        let refused = try fixture.owner().modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .forceUpdate, recordName: "share-trip",
                        share: ShareChange(participants: [.init(emailAddress: "bob", permission: .readOnly)]))
                ], zoneName: "Trips"))
        #expect(refused.first?.error == .badRequest("'bob' is not an email address"))
    }

    @Test func aParticipantCreatingARecordNamedLikeAHiddenOneLearnsNothing() throws {
        let fixture = try Fixture(bobPermission: .readWrite)
        _ = try fixture.accept(fixture.bob)
        let shared = try fixture.shared(fixture.bob)
        // `other` is alice's and not shared with bob. A create of its name under a shared parent
        // answers what any change to a record outside his shares answers, not CONFLICT.
        let created = try shared.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .create, recordName: "other", recordType: "Item", fields: ["title": .string("Mine")], parent: .some("trip"))
                ], zoneName: "Trips"))
        let forced = try shared.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .forceReplace, recordName: "other", recordType: "Item", fields: ["title": .string("Mine")], parent: .some("trip"))
                ], zoneName: "Trips"))
        #expect(created.first?.error == .accessDenied("WRITE operation not permitted: no share lets the caller change this record"))
        #expect(created == forced)
        #expect(try fixture.owner().lookup([RecordLookup("other")], zoneName: "Trips").first?.record?.fields["title"] == .string("Private"))
        // A record bob may read still answers CONFLICT with its copy.
        let visible = try shared.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "day1", recordType: "Item", parent: .some("trip"))
                ], zoneName: "Trips"))
        guard case .conflict(_, let server)? = visible.first?.error else { Issue.record("\(visible)"); return }
        #expect(server?.recordName == "day1")
    }

    @Test func aReadOnlyParticipantCannotWrite() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let shared = try fixture.shared(fixture.bob)
        let day1 = try #require(try shared.lookup([RecordLookup("day1")], zoneName: "Trips").first?.record)
        let results = try shared.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.update, recordName: "day1", recordChangeTag: day1.changeTag, fields: ["title": .string("Changed")]),
                    RecordOperation(.create, recordName: "day2", recordType: "Item", parent: .some("trip")),
                    RecordOperation(.forceDelete, recordName: "photo1"),
                ], zoneName: "Trips", atomic: false))
        #expect(results.map { $0.error.map(CloudKitCode.of) } == ["ACCESS_DENIED", "ACCESS_DENIED", "ACCESS_DENIED"])
        #expect(try fixture.owner().lookup([RecordLookup("day1")], zoneName: "Trips").first?.record?.fields["title"] == .string("Day one"))
    }

    @Test func aReadWriteParticipantWritesInsideTheHierarchyOnly() throws {
        let fixture = try Fixture(bobPermission: .readWrite)
        _ = try fixture.accept(fixture.bob)
        let shared = try fixture.shared(fixture.bob)
        let day1 = try #require(try shared.lookup([RecordLookup("day1")], zoneName: "Trips").first?.record)
        let ownerToken = try fixture.owner().zoneChanges(zoneName: "Trips", syncToken: nil).syncToken
        let bobToken = try shared.zoneChanges(zoneName: "Trips", syncToken: nil).syncToken
        // `other` is not shared with bob: updating or deleting it finds nothing, as if it never was.
        for operation in [
            RecordOperation(.update, recordName: "other", recordChangeTag: "x", fields: ["title": .string("Taken")]),
            RecordOperation(.forceDelete, recordName: "other"),
        ] {
            let hidden = try shared.modify(ModifyRequest(operations: [operation], zoneName: "Trips"))
            #expect(hidden.first?.error.map(CloudKitCode.of) == "NOT_FOUND", "\(operation.kind)")
        }
        let results = try shared.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .update, recordName: "day1", recordChangeTag: day1.changeTag, fields: ["title": .string("Day one, by bob")]),
                    RecordOperation(
                        .create, recordName: "day2", recordType: "Item", fields: ["title": .string("Day two")], parent: .some("trip")),
                    RecordOperation(.create, recordName: "loose", recordType: "Item"),
                    RecordOperation(.forceUpdate, recordName: "other", recordType: "Item", fields: ["title": .string("Taken")]),
                    RecordOperation(.forceDelete, recordName: "trip"),
                    RecordOperation(.forceDelete, recordName: "photo1"),
                    RecordOperation(.forceDelete, recordName: "share-trip"),
                ], zoneName: "Trips", atomic: false))
        #expect(
            results.map { $0.error.map(CloudKitCode.of) ?? "ok" } == [
                "ok", "ok", "ACCESS_DENIED", "ACCESS_DENIED", "ACCESS_DENIED", "ok", "ok",
            ])
        let owner = try fixture.owner()
        let day2 = try #require(try owner.lookup([RecordLookup("day2")], zoneName: "Trips").first?.record)

        #expect(day2.created.userRecordName == fixture.bob)
        #expect(try owner.lookup([RecordLookup("other")], zoneName: "Trips").first?.record?.fields["title"] == .string("Private"))
        // Both feeds carry the deletion bob made inside the hierarchy.
        let ownerFeed = try owner.zoneChanges(zoneName: "Trips", syncToken: ownerToken)
        #expect(ownerFeed.records.contains(.deleted(recordName: "photo1", zoneID: day2.zoneID)))
        // Deleting the share took bob out of it: it is gone from his shared database.
        #expect(try fixture.sharedDirectory(fixture.bob).zones().isEmpty)
        #expect(throws: CloudStoreError.self) { try shared.zoneChanges(zoneName: "Trips", syncToken: bobToken) }
        #expect(
            try owner.lookup([RecordLookup("share-trip")], zoneName: "Trips").first?.record?.sharing?.participants.first?.acceptanceStatus
                == .removed)
    }

    @Test func aParticipantsFeedCarriesDeletionsInTheHierarchyOnly() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let shared = try fixture.shared(fixture.bob)
        let token = try shared.zoneChanges(zoneName: "Trips", syncToken: nil).syncToken
        let owner = try fixture.owner()
        _ = try owner.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.forceDelete, recordName: "photo1"), RecordOperation(.forceDelete, recordName: "other"),
                ], zoneName: "Trips", atomic: false))
        let feed = try shared.zoneChanges(zoneName: "Trips", syncToken: token)
        let zoneID = ZoneID(zoneName: "Trips", ownerRecordName: fixture.alice)
        #expect(feed.records == [.deleted(recordName: "photo1", zoneID: zoneID)])
    }

    @Test func removingAParticipantTakesEffectAtOnce() throws {
        var fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        #expect(try fixture.lookupNames(fixture.bob, ["trip"]) == ["trip": "record"])
        try fixture.setParticipants([])
        #expect(fixture.share.participants.first?.acceptanceStatus == .removed)
        #expect(try fixture.lookupNames(fixture.bob, ["trip"]) == ["trip": "ZONE_NOT_FOUND"])
        #expect(try fixture.sharedDirectory(fixture.bob).zones().isEmpty)
        guard case .resolved(let resolved) = try fixture.resolve(fixture.bob) else { Issue.record("not resolved"); return }
        #expect(resolved.participant.acceptanceStatus == .removed)
        guard case .failure(_, let error) = try fixture.accept(fixture.bob) else { Issue.record("a removed participant accepted"); return }
        #expect(CloudKitCode.of(error) == "ACCESS_DENIED")
        // Invited again, bob must accept again.
        try fixture.setParticipants([.init(userRecordName: fixture.bob, permission: .readOnly)])
        #expect(fixture.share.participants.first?.acceptanceStatus == .invited)
        #expect(try fixture.lookupNames(fixture.bob, ["trip"]) == ["trip": "ZONE_NOT_FOUND"])
    }

    @Test func aPublicShareLetsAnyoneWithItsLinkJoin() throws {
        var fixture = try Fixture(publicPermission: .readOnly)
        guard case .resolved(let resolved) = try fixture.resolve(fixture.carol) else { Issue.record("not resolved"); return }
        #expect(resolved.participant.type == .publicUser)
        #expect(resolved.participant.acceptanceStatus == .invited)
        guard case .resolved(let accepted) = try fixture.accept(fixture.carol) else { Issue.record("not accepted"); return }
        #expect(accepted.participant.type == .publicUser)
        #expect(try fixture.lookupNames(fixture.carol, ["day1", "other"]) == ["day1": "record", "other": "NOT_FOUND"])
        // Closing the share to the public closes it to those who joined that way.
        try fixture.setParticipants(
            [.init(userRecordName: fixture.bob, permission: .readOnly), .init(userRecordName: fixture.carol, permission: .readOnly)],
            publicPermission: SharePermission.none)
        #expect(try fixture.lookupNames(fixture.carol, ["day1"]) == ["day1": "record"], "carol is listed now")
        try fixture.setParticipants([.init(userRecordName: fixture.bob, permission: .readOnly)])
        #expect(try fixture.lookupNames(fixture.carol, ["day1"]) == ["day1": "ZONE_NOT_FOUND"])
    }

    @Test func aZoneShareCoversEveryRecordOfTheZone() throws {
        let fixture = try Fixture()
        let owner = try fixture.owner()
        _ = try owner.modifyZones([ZoneOperation(.create, zoneName: "Family")])
        _ = try owner.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(.create, recordName: "a", recordType: "Item"),
                    RecordOperation(.create, recordName: "b", recordType: "Item"),
                ], zoneName: "Family"))
        let saved = try owner.modify(
            ModifyRequest(
                operations: [
                    RecordOperation(
                        .create, recordName: Share.zoneShareName, recordType: Share.recordType,
                        share: ShareChange(
                            participants: [.init(userRecordName: fixture.bob, permission: .readWrite)]))
                ], zoneName: "Family"))
        let share = try #require(saved.first?.record?.sharing, "\(saved)")
        #expect(share.rootRecordName == nil)
        _ = try fixture.store.store.acceptShares(
            [ShareLookup(shortGUID: share.shortGUID)], fixture.store.container, .development, as: .user(fixture.bob))
        let shared = try fixture.sharedDirectory(fixture.bob).reaching(owner: fixture.alice)
        let queried = try shared.query(QueryRequest(query: Query(recordType: "Item"), zoneName: "Family"))
        #expect(Set(queried.records.map(\.recordName)) == ["a", "b"])
        // Read-write over the zone: a record without a parent may be added.
        let created = try shared.modify(
            ModifyRequest(operations: [RecordOperation(.create, recordName: "c", recordType: "Item")], zoneName: "Family"))
        #expect(created.first?.record?.created.userRecordName == fixture.bob)
        // Zones are still alice's: bob cannot create or delete them.
        #expect(throws: CloudStoreError.self) { try shared.modifyZones([ZoneOperation(.delete, zoneName: "Family")]) }
        // Only the Trips hierarchy is shared with bob in that zone, and he has not accepted it.
        #expect(try fixture.sharedDirectory(fixture.bob).zones().map(\.zoneID.zoneName) == ["Family"])
    }

    @Test func sharesAreRefusedWhereTheyCannotBe() throws {
        let fixture = try Fixture()
        let owner = try fixture.owner()
        _ = try owner.modify(ModifyRequest(operations: [RecordOperation(.create, recordName: "note", recordType: "Item")]))
        func attempt(_ operation: RecordOperation, zone: String = "Trips") throws -> String? {
            try owner.modify(ModifyRequest(operations: [operation], zoneName: zone)).first?.error.map(CloudKitCode.of)
        }
        #expect(
            try attempt(
                RecordOperation(.create, recordName: "s", recordType: Share.recordType, share: ShareChange(rootRecordName: "note")),
                zone: ZoneID.defaultZoneName) == "BAD_REQUEST")
        #expect(try attempt(RecordOperation(.create, recordName: "s", recordType: Share.recordType, share: ShareChange())) == "BAD_REQUEST")
        #expect(
            try attempt(
                RecordOperation(.create, recordName: "s", recordType: Share.recordType, share: ShareChange(rootRecordName: "missing")))
                == "BAD_REQUEST")
        #expect(
            try attempt(RecordOperation(.create, recordName: "s", recordType: Share.recordType, share: ShareChange(rootRecordName: "day1")))
                == "BAD_REQUEST", "day1 is inside the shared hierarchy")
        #expect(
            try attempt(RecordOperation(.create, recordName: "s", recordType: Share.recordType, share: ShareChange(rootRecordName: "trip")))
                == "BAD_REQUEST", "trip is shared already")
        #expect(
            try attempt(RecordOperation(.create, recordName: Share.zoneShareName, recordType: Share.recordType, share: ShareChange()))
                == "BAD_REQUEST", "the zone has a share of a record")
        #expect(
            try attempt(
                RecordOperation(
                    .create, recordName: "s", recordType: Share.recordType,
                    share: ShareChange(
                        rootRecordName: "other", participants: [.init(userRecordName: "_nobody", permission: .readOnly)]))) == "BAD_REQUEST"
        )
        #expect(
            try attempt(
                RecordOperation(
                    .create, recordName: "s", recordType: Share.recordType, fields: ["color": .string("red")],
                    share: ShareChange(rootRecordName: "other"))) == "BAD_REQUEST")
        #expect(
            try attempt(
                RecordOperation(
                    .update, recordName: "share-trip", recordChangeTag: "stale", share: ShareChange(publicPermission: .readOnly)))
                == "CONFLICT")
    }

    @Test func deletingTheRootDeletesItsShare() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        _ = try fixture.owner().modify(ModifyRequest(operations: [RecordOperation(.forceDelete, recordName: "trip")], zoneName: "Trips"))
        guard case .failure(_, let error) = try fixture.resolve(fixture.bob) else { Issue.record("the share outlived its root"); return }
        #expect(CloudKitCode.of(error) == "NOT_FOUND")
        #expect(try fixture.sharedDirectory(fixture.bob).zones().isEmpty)
    }

    @Test func aParticipantsSharedDatabaseSubscriptionFiresForSharedRecordsOnly() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let token = try fixture.store.store.createPushToken(
            fixture.store.container, .development, apnsEnvironment: "development", caller: .user(fixture.bob))
        let results = try fixture.sharedDirectory(fixture.bob).modifySubscriptions([
            SubscriptionOperation(.create, Subscription(subscriptionID: "everything", kind: .database))
        ])
        #expect(results.first.map { if case .subscription = $0 { true } else { false } } == true, "\(results)")
        let owner = try fixture.owner()
        _ = try owner.modify(
            ModifyRequest(operations: [RecordOperation(.forceUpdate, recordName: "other", recordType: "Item")], zoneName: "Trips"))
        #expect(try fixture.store.store.oldestNotification(for: token) == nil, "other is not shared with bob")
        _ = try owner.modify(
            ModifyRequest(operations: [RecordOperation(.forceUpdate, recordName: "day1", recordType: "Item")], zoneName: "Trips"))
        let delivered = try #require(try fixture.store.store.oldestNotification(for: token))
        #expect(delivered.notification.databaseScope == .shared)
        #expect(delivered.notification.userRecordName == fixture.bob)
        #expect(delivered.notification.subscriptionID == "everything")
    }

    @Test func aResetOfDevelopmentEndsItsShares() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        try fixture.store.store.resetDevelopment(fixture.store.container)
        #expect(try fixture.store.store.shares(fixture.store.container, .development).isEmpty)
        #expect(try fixture.sharedDirectory(fixture.bob).zones().isEmpty)
        guard case .failure(_, let error) = try fixture.resolve(fixture.bob) else { Issue.record("a share outlived the reset"); return }
        #expect(CloudKitCode.of(error) == "NOT_FOUND")
    }
}
