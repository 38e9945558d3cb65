import CloudStore
import Testing

@testable import Console

/// The console acting as a participant in the shared database: Records, Zones and Sync reach the
/// zone shared with them, named with its owner; a stranger is refused; a console 404 stays in
/// the console frame.
@Suite struct SharedDatabasePagesTests {
    /// A console with alice's zone `Trips` shared (record `trip`) with bob, who accepted, and
    /// carol, only invited; `other`, outside the shared hierarchy, is alice's alone. The operator
    /// `root` is signed in.
    struct Fixture {
        let server: ConsoleTestServer
        let cookie: (String, String)
        /// The signed-in operator's form token.
        let csrf: String
        let alice: String
        let base: String

        init() throws {
            server = try ConsoleTestServer()
            let (store, c) = (server.store, server.container)
            (cookie, csrf) = try server.signedInOperator()
            try store.importSchema(
                """
                DEFINE SCHEMA
                    RECORD TYPE Item ("___recordID" REFERENCE QUERYABLE, title STRING QUERYABLE, GRANT READ, CREATE, WRITE TO "_creator");
                """, into: c, .development)
            alice = try store.addUser(c, name: "alice", password: "a long passphrase").userRecordName
            let bob = try store.addUser(c, name: "bob", password: "a long passphrase").userRecordName
            let carol = try store.addUser(c, name: "carol", password: "a long passphrase").userRecordName
            let owner = try store.database(c, .development, .private, as: .user(alice))
            _ = try owner.modifyZones([ZoneOperation(.create, zoneName: "Trips")])
            let saved = try owner.modify(
                ModifyRequest(
                    operations: [
                        RecordOperation(.create, recordName: "trip", recordType: "Item", fields: ["title": .string("Lisbon")]),
                        RecordOperation(.create, recordName: "other", recordType: "Item", fields: ["title": .string("Private")]),
                        RecordOperation(
                            .create, recordName: "share-trip", recordType: Share.recordType,
                            share: ShareChange(
                                rootRecordName: "trip",
                                participants: [
                                    .init(userRecordName: bob, permission: .readOnly), .init(userRecordName: carol, permission: .readOnly),
                                ])),
                    ], zoneName: "Trips"))
            let share = try #require(saved.last?.record?.sharing)
            _ = try store.acceptShares([ShareLookup(shortGUID: share.shortGUID)], c, .development, as: .user(bob))
            base = "/console/containers/\(c.rawValue)/development/shared"
        }

        func get(_ path: String) throws -> (Int, String) {
            let response = try server.get(path, headers: [cookie])
            return (response.status, response.text)
        }
    }

    @Test func aParticipantBrowsesTheSharedZoneWithItsOwner() throws {
        let fixture = try Fixture()
        let (status, records) = try fixture.get(fixture.base + "/records?user=bob&type=Item")
        #expect(status == 200, "\(records)")
        #expect(records.contains("Trips — alice"))
        #expect(records.contains("trip"))
        #expect(!records.contains(">other<"), "a record outside bob's share is not shown")
        #expect(!records.contains("does not exist"))

        let (zonesStatus, zones) = try fixture.get(fixture.base + "/zones?user=bob")
        #expect(zonesStatus == 200)
        #expect(zones.contains("Leave…"))
        #expect(!zones.contains("Delete…"))
        #expect(zones.contains("alice (<code>"), "the owner is named by name first")

        let (syncStatus, sync) = try fixture.get(fixture.base + "/sync?user=bob&zone=Trips&owner=\(fixture.alice)")
        #expect(syncStatus == 200, "\(sync)")
        #expect(sync.contains("Containers"), "the page is inside the console")
    }

    @Test func aParticipantsNextPageIsSimulatedAsThemLeavingOutWhatIsNotShared() throws {
        let fixture = try Fixture()
        let (status, page) = try fixture.get(fixture.base + "/sync?user=bob&zone=Trips&owner=\(fixture.alice)&syncToken=&simulate=1")
        #expect(status == 200, "\(page)")
        #expect(page.contains("As bob:"))
        let next = page.components(separatedBy: "id=\"next-records\"").last ?? ""
        #expect(next.contains(">trip<") && !next.contains(">other<"), "only the shared hierarchy reaches bob")
        // The log itself is the zone's, as an operator reads it, its names linked in the shared database.
        #expect(page.contains("owner=\(fixture.alice)"))
    }

    /// The participant's records are listed from the store by name, as other zones are, and
    /// counted as far as their share reaches: the shared hierarchy, not alice's other record.
    @Test func aParticipantBrowsesOnlyWhatTheShareGivesAndItIsCountedSo() throws {
        let fixture = try Fixture()
        let (status, records) = try fixture.get(fixture.base + "/records?user=bob&type=Item&zone=Trips&owner=\(fixture.alice)")
        #expect(status == 200, "\(records)")
        #expect(records.contains("1 Item record in zone Trips · 1 shown, page 1 · by record name"), "\(records)")
        #expect(records.contains(#"<option value="Item" selected>Item (1)</option>"#))
        #expect(!records.contains(">other<"))
        let detail = try fixture.get(fixture.base + "/records/other?user=bob&zone=Trips&owner=\(fixture.alice)")
        #expect(detail.0 == 404)
        let zones = try fixture.get(fixture.base + "/zones?user=bob").1
        let row = try #require(zones.firstMatch(of: /data-label="Records"[^>]*>([^<]+)</)?.1)
        #expect(row == "1", "\(zones)")
    }

    /// An invited participant who has not accepted learns nothing of the zone's contents: the
    /// records page is a 404 with no type counts.
    @Test func anInvitedParticipantSeesNoCountsOfTheZone() throws {
        let fixture = try Fixture()
        let (status, page) = try fixture.get(fixture.base + "/records?user=carol&zone=Trips&owner=\(fixture.alice)")
        #expect(status == 404)
        #expect(page.contains("Trips"))
        #expect(!page.contains("Item ("), "\(page)")
        #expect(!page.contains("record in zone") && !page.contains("records in zone"))
        let zones = try fixture.get(fixture.base + "/zones?user=carol").1
        #expect(!zones.contains("Trips"), "the zone is not in carol's shared database")
    }

    /// The act-as-user box offers the container's users by name, the record name second, and
    /// stays a text box; where no user can be acted as (production) it offers none.
    @Test func theActAsUserBoxOffersTheUsersByName() throws {
        let fixture = try Fixture()
        let page = try fixture.get(fixture.base + "/zones").1
        #expect(page.contains(#"id="bar-user" name="user" type="text""#) && page.contains(#"list="bar-users""#))
        let options = try #require(HTML.text(in: page, between: #"<datalist id="bar-users">"#, and: "</datalist>"))
        #expect(
            options.hasPrefix(#"<option value="alice">alice (\#(UserNames.short(fixture.alice)))</option><option value="bob">"#),
            "\(options)")
        #expect(options.contains(#"<option value="carol">carol (_"#))
        let production = try fixture.get(fixture.base.replacingOccurrences(of: "/development/", with: "/production/") + "/zones").1
        #expect(production.contains(#"id="bar-user""#) && !production.contains("bar-users"))
    }

    @Test func aStrangerIsRefusedTheZoneInsideTheConsole() throws {
        let fixture = try Fixture()
        let (status, page) = try fixture.get(fixture.base + "/sync?user=carol&zone=Trips&owner=\(fixture.alice)")
        #expect(status == 404)
        #expect(page.contains("Management tokens"), "the 404 keeps the console's navigation")
        #expect(!page.contains("Go to the start page"))
    }

    @Test func aZoneNotSharedWithTheUserIsStillNamedByItsOwnersNameInThePicker() throws {
        let fixture = try Fixture()
        let (status, page) = try fixture.get(fixture.base + "/records?user=carol&type=Item&zone=Trips&owner=\(fixture.alice)")
        #expect(status == 404)
        #expect(page.contains("Trips — alice</option>"), "\(page)")
        #expect(!page.contains("Trips — _"))
    }

    @Test func theLeaveConfirmationNamesTheZoneItsOwnerAndTheShare() throws {
        let fixture = try Fixture()
        let zones = try fixture.get(fixture.base + "/zones?user=bob").1
        let csrf = try #require(zones.firstMatch(of: /name="csrfToken" value="([^"]+)"/)?.1)
        let response = try fixture.server.post(
            fixture.base + "/zones/Trips/leave", form: [("csrfToken", String(csrf)), ("user", "bob"), ("owner", fixture.alice)],
            headers: [fixture.cookie, ("Sec-Fetch-Site", "same-origin")])
        #expect(response.status == 200)
        #expect(response.text.contains("Leave zone Trips of alice (_"))
        #expect(response.text.contains("Share share-trip of record trip"))
    }

    @Test func anUnknownConsolePathIsA404InsideTheConsole() throws {
        let fixture = try Fixture()
        let (status, page) = try fixture.get("/console/no/such/page")
        #expect(status == 404)
        #expect(page.contains("Management tokens"))
        #expect(page.contains("There is no console page at /console/no/such/page."))
    }
}
