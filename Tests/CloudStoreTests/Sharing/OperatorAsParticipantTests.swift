import TestSupport
import Testing

@testable import CloudStore

/// The operator acting as a user in that user's shared database (the console's "act as user"):
/// the zone's owner is honoured, and the user's shares decide what the operator sees, exactly
/// as they decide for the user; leaving a shared zone takes the user out of its shares.
@Suite struct OperatorAsParticipantTests {
    typealias Fixture = SharingTests.Fixture

    /// `user`'s shared database as the operator opens it, reaching alice's zones.
    func actingAs(_ user: String, _ fixture: Fixture) throws -> CloudDatabase {
        try fixture.store.store.database(fixture.store.container, .development, database: .shared(user), as: .operator())
            .reaching(owner: fixture.alice)
    }

    @Test func theOperatorActingAsAParticipantSeesWhatTheSharesGiveThem() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let shared = try actingAs(fixture.bob, fixture)
        #expect(shared.database == .private(fixture.alice))
        let queried = try shared.query(QueryRequest(query: Query(recordType: "Item"), zoneName: "Trips"))
        #expect(Set(queried.records.map(\.recordName)) == ["trip", "day1", "photo1"])
        let other = try shared.lookup([RecordLookup("other")], zoneName: "Trips")
        #expect(other.first?.record == nil, "a record outside the shared hierarchy stays hidden from the operator acting as bob")
        let feed = try shared.zoneChanges(zoneName: "Trips", syncToken: nil)
        #expect(Set(feed.records.compactMap(\.record?.recordName)) == ["trip", "day1", "photo1"])
        #expect(try shared.zones().map(\.zoneID) == [ZoneID(zoneName: "Trips", ownerRecordName: fixture.alice)])
    }

    /// The operator's listing and counts, acting as a participant, hold what the shares give
    /// the participant: the shared hierarchy, not the record outside it.
    @Test func theListingAndCountsActingAsAParticipantHoldOnlyTheSharedHierarchy() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let shared = try actingAs(fixture.bob, fixture)
        let listed = try shared.listRecords(zoneName: "Trips", recordType: "Item", limit: 2)
        #expect(listed.records.map(\.recordName) == ["day1", "photo1"])
        let rest = try shared.listRecords(zoneName: "Trips", recordType: "Item", after: listed.continuation, limit: 2)
        #expect(rest.records.map(\.recordName) == ["trip"] && rest.continuation == nil)
        #expect(try shared.recordCounts(zoneName: "Trips") == ["Item": 3])
        #expect(try shared.recordCounts() == ["Item": 3])
        let usage = try shared.usage(ofZone: "Trips")
        #expect(usage.counts == ["Item": 3] && usage.bytes > 0)
        #expect(usage.bytes < (try fixture.owner().usage(ofZone: "Trips").bytes), "the record outside the hierarchy is not counted")
        #expect(try fixture.owner().recordCounts(zoneName: "Trips") == ["Item": 4])
        #expect(try shared.referrers(of: "trip", zoneName: "Trips").referrers.map(\.recordName) == ["day1"])
    }

    /// Nothing is listed or counted for an invited participant who has not accepted, and a
    /// participant is no operator: their own listing is refused.
    @Test func theListingAndCountsAreRefusedToTheInvitedAndToTheParticipantThemselves() throws {
        let fixture = try Fixture()
        let invited = try actingAs(fixture.bob, fixture)
        let missing = CloudStoreError.zoneNotFound(ZoneID(zoneName: "Trips", ownerRecordName: fixture.alice))
        #expect(throws: missing) { try invited.listRecords(zoneName: "Trips", limit: 10) }
        #expect(throws: missing) { try invited.recordCounts(zoneName: "Trips") }
        #expect(throws: missing) { try invited.usage(ofZone: "Trips") }
        #expect(try invited.recordCounts().isEmpty)
        _ = try fixture.accept(fixture.bob)
        let bob = try fixture.shared(fixture.bob)
        #expect(throws: CloudStoreError.accessDenied("Only an operator may list a zone's records without a query")) {
            try bob.listRecords(zoneName: "Trips", limit: 10)
        }
        #expect(throws: CloudStoreError.accessDenied("Only an operator may list the records referring to a record")) {
            try bob.referrers(of: "trip", zoneName: "Trips")
        }
    }

    @Test func theOperatorActingAsAnotherUserIsRefusedTheZone() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let stranger = try actingAs(fixture.carol, fixture)
        #expect(try stranger.zones().isEmpty)
        guard case .failure(_, .zoneNotFound)? = try stranger.lookupZones(["Trips"]).first else {
            Issue.record("carol's shared database reached alice's zone")
            return
        }
        #expect(throws: CloudStoreError.zoneNotFound(ZoneID(zoneName: "Trips", ownerRecordName: fixture.alice))) {
            try stranger.query(QueryRequest(query: Query(recordType: "Item"), zoneName: "Trips"))
        }
        let lookedUp = try stranger.lookup([RecordLookup("trip")], zoneName: "Trips")
        #expect(lookedUp.first?.record == nil)
        // Not even the invited, who has not accepted yet.
        #expect(throws: CloudStoreError.self) {
            try fixture.store.store.leaveSharedZone(
                "Trips", owner: fixture.alice, participant: fixture.carol, fixture.store.container, .development, as: .operator())
        }
    }

    @Test func leavingASharedZoneTakesTheParticipantOutOfItsShares() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        let left = try fixture.store.store.leaveSharedZone(
            "Trips", owner: fixture.alice, participant: fixture.bob, fixture.store.container, .development, as: .operator())
        #expect(left == ["share-trip"])
        #expect(try fixture.sharedDirectory(fixture.bob).zones().isEmpty)
        #expect(try fixture.lookupNames(fixture.bob, ["trip"]) == ["trip": "ZONE_NOT_FOUND"])
        let share = try #require(try fixture.store.store.shares(fixture.store.container, .development).first)
        #expect(share.participants.first { $0.userRecordName == fixture.bob }?.acceptanceStatus == .removed)
        // The owner keeps the zone and its records.
        #expect(try fixture.owner().lookup([RecordLookup("trip")], zoneName: "Trips").first?.record != nil)
        // Left once, there is nothing more to leave.
        #expect(throws: CloudStoreError.self) {
            try fixture.store.store.leaveSharedZone(
                "Trips", owner: fixture.alice, participant: fixture.bob, fixture.store.container, .development, as: .operator())
        }
    }

    @Test func anOperatorLeavesNothingInProduction() throws {
        let fixture = try Fixture()
        _ = try fixture.accept(fixture.bob)
        #expect(throws: CloudStoreError.self) {
            try fixture.store.store.leaveSharedZone(
                "Trips", owner: fixture.alice, participant: fixture.bob, fixture.store.container, .production, as: .operator())
        }
        #expect(try fixture.sharedDirectory(fixture.bob).zones().count == 1)
    }
}
