import CloudKitWire
import CloudStore
import TestSupport
import Testing

@testable import WebServices

/// Sharing over HTTP: a `cloudkit.share` saved with `records/modify`, `records/resolve` and
/// `records/accept` on the public path, and the shared database addressed by `ownerRecordName`,
/// in the shapes CloudKit JS and MistKit read; and the callers it refuses.
@Suite struct SharingAPITests {
    struct Fixture {
        let server: APITestServer
        let alice: String
        let aliceToken: String
        let bobToken: String
        let carolToken: String
        let shortGUID: String

        init() throws {
            server = try APITestServer()
            aliceToken = try server.signIn()
            alice = try #require(try server.store.user(named: "alice", in: server.container)?.userRecordName)
            for name in ["bob", "carol"] {
                try server.store.addUser(server.container, name: name, password: "a long passphrase", emailAddress: "\(name)@example.com")
            }
            bobToken = try server.store.signIn(server.container, .development, name: "bob", password: "a long passphrase").webAuthToken
            carolToken = try server.store.signIn(server.container, .development, name: "carol", password: "a long passphrase").webAuthToken
            let zone = try server.post(
                "private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Trips"}}}]}"#,
                webAuthToken: aliceToken)
            #expect(zone.status == 200, "\(zone.text)")
            let saved = try server.post(
                "private", "records/modify",
                """
                {"zoneID":{"zoneName":"Trips"},"operations":[
                  {"operationType":"create","record":{"recordName":"trip","recordType":"Trip","fields":{"title":{"value":"Lisbon"}}}},
                  {"operationType":"create","record":{"recordName":"day1","recordType":"Trip","fields":{"title":{"value":"Day one"}},
                    "parent":{"recordName":"trip"}}},
                  {"operationType":"create","record":{"recordName":"secret","recordType":"Trip"}},
                  {"operationType":"create","record":{"recordName":"share-trip","recordType":"cloudkit.share","createShortGUID":true,
                    "forRecord":{"recordName":"trip"},"publicPermission":"NONE",
                    "fields":{"cloudkit.title":{"value":"Lisbon trip","type":"STRING"}},
                    "participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"bob@example.com"}},"permission":"READ_WRITE","type":"USER"}]}}
                ]}
                """, webAuthToken: aliceToken)
            #expect(saved.status == 200, "\(saved.text)")
            let share = try saved.json()["records"]?[3]
            shortGUID = try #require(share?["shortGUID"]?.stringValue, "\(saved.text)")
        }

        func shared(_ operation: String, _ json: String, as token: String?) throws -> APIResponse {
            try server.post("shared", operation, json, webAuthToken: token)
        }

        var tripsZone: String { #"{"zoneName":"Trips","ownerRecordName":"\#(alice)"}"# }
    }

    @Test func theShareRecordDescribesItsParticipants() throws {
        let fixture = try Fixture()
        let lookup = try fixture.server.post(
            "private", "records/lookup", #"{"zoneID":{"zoneName":"Trips"},"records":[{"recordName":"share-trip"},{"recordName":"trip"}]}"#,
            webAuthToken: fixture.aliceToken)
        let share = try lookup.json()["records"]?[0]
        #expect(share?["recordType"] == "cloudkit.share")
        #expect(share?["shortGUID"]?.stringValue?.count == 25)
        #expect(share?["publicPermission"] == "NONE")
        #expect(share?["fields"]?["cloudkit.title"]?["value"] == "Lisbon trip")
        #expect(
            share?["participants"]?[0]?["type"] == "OWNER"
                && share?["participants"]?[0]?["userIdentity"]?["userRecordName"] == .string(fixture.alice))
        #expect(share?["participants"]?[1]?["permission"] == "READ_WRITE" && share?["participants"]?[1]?["acceptanceStatus"] == "INVITED")
        #expect(share?["currentUserParticipant"]?["type"] == "OWNER")
        #expect(share?["owner"]?["userIdentity"]?["userRecordName"] == .string(fixture.alice))
        let root = try lookup.json()["records"]?[1]
        #expect(root?["share"]?["recordName"] == "share-trip" && root?["share"]?["zoneID"]?["zoneName"] == "Trips")
    }

    @Test func inviteesByEmailAreAnsweredAlikeWhetherOrNotAUserHasTheAddress() throws {
        let fixture = try Fixture()
        // The review's proof, as carol in a zone of her own: bob is not discoverable.
        let discover = try fixture.server.post(
            "public", "users/discover", #"{"lookupInfos":[{"emailAddress":"bob@example.com"}]}"#, webAuthToken: fixture.carolToken)
        #expect(try discover.json()["users"]?.arrayValue?.isEmpty == true, "\(discover.text)")
        _ = try fixture.server.post(
            "private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Probe"}}}]}"#,
            webAuthToken: fixture.carolToken)
        func invite(_ address: String) throws -> (status: Int, participant: JSONValue?) {
            let saved = try fixture.server.post(
                "private", "records/modify",
                """
                {"zoneID":{"zoneName":"Probe"},"operations":[{"operationType":"forceReplace","record":{"recordName":"cloudkit.zoneshare",
                  "recordType":"cloudkit.share","participants":[{"userIdentity":{"lookupInfo":{"emailAddress":"\(address)"}},"permission":"READ_ONLY"}]}}]}
                """, webAuthToken: fixture.carolToken)
            return (saved.status, try saved.json()["records"]?[0]?["participants"]?[1])
        }
        let known = try invite("bob@example.com")
        let unknown = try invite("nobody@example.com")
        #expect(known.status == 200 && unknown.status == 200)
        #expect(known.participant?["userIdentity"] == ["lookupInfo": ["emailAddress": "bob@example.com"]])
        #expect(unknown.participant?["userIdentity"] == ["lookupInfo": ["emailAddress": "nobody@example.com"]])
        let bob = try #require(try fixture.server.store.user(named: "bob", in: fixture.server.container)?.userRecordName)
        let answers = [known, unknown].map { "\($0.participant.map { "\($0)" } ?? "")" }
        #expect(!answers[0].contains(bob))
        #expect(answers[0].replacingOccurrences(of: "bob@", with: "nobody@") == answers[1])
    }

    @Test func resolveAcceptThenReadAndWriteThroughTheSharedDatabase() throws {
        let fixture = try Fixture()
        let body = #"{"shortGUIDs":[{"value":"\#(fixture.shortGUID)","shouldFetchRootRecord":true}]}"#
        let resolved = try fixture.server.post("public", "records/resolve", body, webAuthToken: fixture.bobToken)
        #expect(resolved.status == 200, "\(resolved.text)")
        let result = try resolved.json()["results"]?[0]
        #expect(result?["participantStatus"] == "INVITED" && result?["participantPermission"] == "READ_WRITE")
        #expect(result?["participantType"] == "USER" && result?["databaseScope"] == "SHARED")
        #expect(result?["ownerIdentity"]?["userRecordName"] == .string(fixture.alice))
        #expect(result?["ownerIdentity"]?["nameComponents"]?["givenName"] == "Alice")
        #expect(result?["zoneID"]?["zoneName"] == "Trips" && result?["rootRecordName"] == "trip")
        #expect(
            result?["share"]?["recordType"] == "cloudkit.share"
                && result?["containerIdentifier"] == .string(fixture.server.container.rawValue))
        #expect(result?["environment"] == "DEVELOPMENT")

        let accepted = try fixture.server.post("public", "records/accept", body, webAuthToken: fixture.bobToken)
        #expect(try accepted.json()["results"]?[0]?["participantStatus"] == "ACCEPTED", "\(accepted.text)")
        #expect(try accepted.json()["results"]?[0]?["rootRecord"]?["fields"]?["title"]?["value"] == "Lisbon")
        #expect(try accepted.json()["results"]?[0]?["share"]?["currentUserParticipant"]?["acceptanceStatus"] == "ACCEPTED")

        let zones = try fixture.shared("zones/list", "{}", as: fixture.bobToken)
        #expect(try zones.json()["zones"]?[0]?["zoneID"]?["ownerRecordName"] == .string(fixture.alice), "\(zones.text)")
        #expect(try zones.json()["zones"]?.arrayValue?.count == 1)
        let database = try fixture.shared("changes/database", "{}", as: fixture.bobToken)
        #expect(try database.json()["zones"]?[0]?["zoneID"]?["zoneName"] == "Trips", "\(database.text)")

        let lookup = try fixture.shared(
            "records/lookup",
            #"{"zoneID":\#(fixture.tripsZone),"records":[{"recordName":"trip"},{"recordName":"day1"},{"recordName":"secret"}]}"#,
            as: fixture.bobToken)
        let records = try lookup.json()["records"]
        #expect(records?[0]?["share"]?["recordName"] == "share-trip")
        #expect(records?[1]?["fields"]?["title"]?["value"] == "Day one")
        #expect(records?[2]?["serverErrorCode"] == "NOT_FOUND", "\(lookup.text)")

        let changes = try fixture.shared("changes/zone", #"{"zones":[{"zoneID":\#(fixture.tripsZone)}]}"#, as: fixture.bobToken)
        let names = try changes.json()["zones"]?[0]?["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue }
        #expect(Set(names ?? []) == ["trip", "day1"], "\(changes.text)")

        let created = try fixture.shared(
            "records/modify",
            """
            {"zoneID":\(fixture.tripsZone),"operations":[{"operationType":"create","record":{"recordName":"day2","recordType":"Trip",
              "parent":{"recordName":"trip"},"fields":{"title":{"value":"Day two"}}}}]}
            """, as: fixture.bobToken)
        #expect(try created.json()["records"]?[0]?["zoneID"]?["ownerRecordName"] == .string(fixture.alice), "\(created.text)")
        let seen = try fixture.server.post(
            "private", "records/lookup", #"{"zoneID":{"zoneName":"Trips"},"records":[{"recordName":"day2"}]}"#,
            webAuthToken: fixture.aliceToken)
        #expect(try seen.json()["records"]?[0]?["fields"]?["title"]?["value"] == "Day two")
    }

    @Test func theSharedDatabaseRefusesWhoItMust() throws {
        let fixture = try Fixture()
        _ = try fixture.server.post(
            "public", "records/accept", #"{"shortGUIDs":[{"value":"\#(fixture.shortGUID)"}]}"#, webAuthToken: fixture.bobToken)
        let lookup = #"{"zoneID":\#(fixture.tripsZone),"records":[{"recordName":"trip"}]}"#
        // A stranger: the zone is not there for them; the world: sign in first.
        let stranger = try fixture.shared("records/lookup", lookup, as: fixture.carolToken)
        #expect(try stranger.json()["records"]?[0]?["serverErrorCode"] == "ZONE_NOT_FOUND", "\(stranger.text)")
        let strangerChanges = try fixture.shared("changes/zone", #"{"zones":[{"zoneID":\#(fixture.tripsZone)}]}"#, as: fixture.carolToken)
        #expect(try strangerChanges.json()["zones"]?[0]?["serverErrorCode"] == "ZONE_NOT_FOUND")
        let strangerWrite = try fixture.shared(
            "records/modify",
            """
            {"zoneID":\(fixture.tripsZone),"operations":[{"operationType":"create","record":{"recordName":"x","recordType":"Trip",
              "parent":{"recordName":"trip"}}}]}
            """, as: fixture.carolToken)
        #expect(try strangerWrite.json()["records"]?[0]?["serverErrorCode"] == "ZONE_NOT_FOUND", "\(strangerWrite.text)")
        let resolved = try fixture.server.post(
            "public", "records/resolve", #"{"shortGUIDs":[{"value":"\#(fixture.shortGUID)"}]}"#,
            webAuthToken: fixture.carolToken)
        #expect(try resolved.json()["results"]?[0]?["serverErrorCode"] == "NOT_FOUND", "\(resolved.text)")
        let world = try fixture.shared("records/lookup", lookup, as: nil)
        #expect(world.status == 421)
        #expect(try world.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        let worldResolve = try fixture.server.post("public", "records/resolve", #"{"shortGUIDs":[{"value":"\#(fixture.shortGUID)"}]}"#)
        #expect(worldResolve.status == 421)
        // A participant must say whose zone: without ownerRecordName there is none to write in.
        let ownerless = try fixture.shared(
            "records/modify",
            """
            {"zoneID":{"zoneName":"Trips"},"operations":[{"operationType":"create","record":{"recordName":"y","recordType":"Trip"}}]}
            """, as: fixture.bobToken)
        #expect(ownerless.status == 400, "\(ownerless.text)")
        #expect(try ownerless.json()["serverErrorCode"] == "BAD_REQUEST")
        let malformed = try fixture.server.post(
            "public", "records/resolve", #"{"shortGUIDs":[{"shouldFetchRootRecord":true}]}"#,
            webAuthToken: fixture.bobToken)
        #expect(malformed.status == 400)

        // The owner removes bob: his next request finds nothing.
        let current = try fixture.server.post(
            "private", "records/lookup", #"{"zoneID":{"zoneName":"Trips"},"records":[{"recordName":"share-trip"}]}"#,
            webAuthToken: fixture.aliceToken)
        let tag = try #require(try current.json()["records"]?[0]?["recordChangeTag"]?.stringValue)
        let removed = try fixture.server.post(
            "private", "records/modify",
            """
            {"zoneID":{"zoneName":"Trips"},"operations":[{"operationType":"update","record":{"recordName":"share-trip",
              "recordChangeTag":"\(tag)","participants":[]}}]}
            """, webAuthToken: fixture.aliceToken)
        #expect(try removed.json()["records"]?[0]?["participants"]?[1]?["acceptanceStatus"] == "REMOVED", "\(removed.text)")
        let after = try fixture.shared("records/lookup", lookup, as: fixture.bobToken)
        #expect(try after.json()["records"]?[0]?["serverErrorCode"] == "ZONE_NOT_FOUND", "\(after.text)")
    }

    @Test func aParticipantsFilesAreServedWhileTheShareLasts() throws {
        let fixture = try Fixture()
        let server = fixture.server
        _ = try server.post(
            "public", "records/accept", #"{"shortGUIDs":[{"value":"\#(fixture.shortGUID)"}]}"#, webAuthToken: fixture.bobToken)
        // Bob uploads into alice's zone through his shared database, and saves the file under the shared root.
        let asked = try fixture.shared(
            "assets/upload", #"{"zoneID":\#(fixture.tripsZone),"tokens":[{"recordName":"day3","recordType":"Trip","fieldName":"photo"}]}"#,
            as: fixture.bobToken)
        let url = try #require(try asked.json()["tokens"]?[0]?["url"]?.stringValue, "\(asked.text)")
        let content = (0..<3_000).map { UInt8($0 % 253) }
        let posted = try HTTPTestClient.send(
            port: server.port, method: "POST", target: String(url.dropFirst("http://127.0.0.1:\(server.port)".count)), body: content,
            headers: ["Content-Type": "application/octet-stream"])
        let file = try #require(try posted.json()["singleFile"], "\(posted.text)")
        let saved = try fixture.shared(
            "records/modify",
            """
            {"zoneID":\(fixture.tripsZone),"operations":[{"operationType":"create","record":{"recordName":"day3","recordType":"Trip",
              "parent":{"recordName":"trip"},"fields":{"photo":{"value":\(String(decoding: file.serialized(), as: UTF8.self))}}}}]}
            """, as: fixture.bobToken)
        let bobURL = try #require(
            try saved.json()["records"]?[0]?["fields"]?["photo"]?["value"]?["downloadURL"]?.stringValue, "\(saved.text)")
        let bobDownload = try AssetsAPITests.download(server, bobURL)
        #expect(bobDownload.status == 200 && bobDownload.body == content)
        let ownerLookup = try server.post(
            "private", "records/lookup", #"{"zoneID":{"zoneName":"Trips"},"records":[{"recordName":"day3"}]}"#,
            webAuthToken: fixture.aliceToken)
        let aliceURL = try #require(try ownerLookup.json()["records"]?[0]?["fields"]?["photo"]?["value"]?["downloadURL"]?.stringValue)
        #expect(try AssetsAPITests.download(server, aliceURL).body == content)

        // Once bob is out of the share, the URL he was given serves nothing.
        let current = try server.post(
            "private", "records/lookup", #"{"zoneID":{"zoneName":"Trips"},"records":[{"recordName":"share-trip"}]}"#,
            webAuthToken: fixture.aliceToken)
        let tag = try #require(try current.json()["records"]?[0]?["recordChangeTag"]?.stringValue)
        _ = try server.post(
            "private", "records/modify",
            """
            {"zoneID":{"zoneName":"Trips"},"operations":[{"operationType":"update","record":{"recordName":"share-trip",
              "recordChangeTag":"\(tag)","participants":[]}}]}
            """, webAuthToken: fixture.aliceToken)
        let refused = try AssetsAPITests.download(server, bobURL)
        #expect(refused.status == 404 && refused.body != content, "\(refused.status)")
        #expect(try AssetsAPITests.download(server, aliceURL).status == 200)
    }
}
