import CloudStore
import Testing

@testable import WebServices

/// `records/changes` and `changes/zone` over HTTP: the shapes CloudKit JS and MistKit read,
/// paging with tokens, per-zone errors, expired tokens, and callers refused.
@Suite struct ChangesAPITests {
    static func create(_ server: APITestServer, _ database: String, _ name: String, token: String, zone: String = "_defaultZone") throws {
        let response = try server.post(
            database, "records/modify",
            """
            {"operations":[{"operationType":"forceReplace","record":{"recordName":"\(name)","recordType":"Note",
              "fields":{"title":{"value":"\(name)"}}}}],"zoneID":{"zoneName":"\(zone)"}}
            """, webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
    }

    @Test func recordsChangesAnswersEachRecordOnceWithTombstonesAndPages() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        try Self.create(server, "public", "n1", token: token)
        try Self.create(server, "public", "n2", token: token)
        try Self.create(server, "public", "n1", token: token)
        let delete = try server.post(
            "public", "records/modify",
            #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"n2"}}]}"#, webAuthToken: token)
        #expect(delete.status == 200, "\(delete.text)")

        let first = try server.post("public", "records/changes", "{}", webAuthToken: token)
        #expect(first.status == 200, "\(first.text)")
        let body = try first.json()
        #expect(body["records"]?[0]?["recordName"] == "n1" && body["records"]?[0]?["fields"]?["title"]?["value"] == "n1")
        #expect(
            body["records"]?[1] == [
                "recordName": "n2", "deleted": true,
                "zoneID": ["zoneName": "_defaultZone", "ownerRecordName": "_defaultOwner", "zoneType": "DEFAULT_ZONE"],
            ])
        #expect(body["records"]?.arrayValue?.count == 2 && body["moreComing"] == false && body["reverse"] == false)
        let syncToken = try #require(body["syncToken"]?.stringValue)
        let after = try server.post("public", "records/changes", #"{"syncToken":"\#(syncToken)"}"#, webAuthToken: token)
        #expect(try after.json()["records"] == [] && (try after.json()["moreComing"]) == false)

        // One change of the log per page: n1, changed again after n2, comes once, in the page of its
        // latest change, as it is now; the pages of its creation and of n2's hold nothing.
        var pages: [[String]] = []
        var pageToken: String?
        var moreComing = true
        while moreComing, pages.count < 10 {
            let request =
                pageToken.map { #"{"resultsLimit":1,"syncToken":"\#($0)"}"# } ?? #"{"resultsLimit":1,"zoneID":{"zoneName":"_defaultZone"}}"#
            let paged = try server.post("public", "records/changes", request)
            #expect(paged.status == 200, "the world reads the public feed: \(paged.text)")
            let page = try paged.json()
            let records = page["records"]?.arrayValue ?? []
            pages.append(records.map { ($0["deleted"] == true ? "deleted " : "") + ($0["recordName"]?.stringValue ?? "") })
            if let n1 = records.first(where: { $0["recordName"] == "n1" }) {
                #expect(n1["recordChangeTag"] == body["records"]?[0]?["recordChangeTag"])
            }
            pageToken = page["syncToken"]?.stringValue
            moreComing = page["moreComing"] == true
        }
        #expect(pages == [[], [], ["n1"], ["deleted n2"]])
        let reversed = try server.post("public", "records/changes", #"{"reverse":true}"#)
        #expect(try reversed.json()["records"]?[0]?["recordName"] == "n2" && (try reversed.json()["reverse"]) == true)
    }

    @Test func changesZoneAnswersPerZoneWithErrorsInTheirPlace() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let zones = try server.post(
            "private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Work"}}}]}"#,
            webAuthToken: token)
        #expect(zones.status == 200, "\(zones.text)")
        try Self.create(server, "private", "w1", token: token, zone: "Work")
        try Self.create(server, "private", "w2", token: token, zone: "Work")
        try Self.create(server, "private", "d1", token: token)
        let response = try server.post(
            "private", "changes/zone",
            """
            {"zones":[{"zoneID":{"zoneName":"Work"},"resultsLimit":1},{"zoneID":{"zoneName":"_defaultZone"}},{"zoneID":{"zoneName":"Nope"}}],
             "desiredKeys":[],"numberAsStrings":true}
            """, webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
        let answer = try response.json()["zones"]
        #expect(answer?[0]?["zoneID"]?["zoneName"] == "Work" && answer?[0]?["moreComing"] == true)
        #expect(
            answer?[0]?["records"]?[0]?["recordName"] == "w1" && answer?[0]?["records"]?[0]?["fields"] == nil,
            "desiredKeys [] from the request")
        #expect(answer?[1]?["records"]?[0]?["recordName"] == "d1" && answer?[1]?["moreComing"] == false)
        #expect(answer?[2]?["serverErrorCode"] == "ZONE_NOT_FOUND" && answer?[2]?["zoneID"]?["zoneName"] == "Nope")

        // A token of one zone sent for another, and one from before a reset.
        let workToken = try #require(answer?[0]?["syncToken"]?.stringValue)
        let crossed = try server.post(
            "private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"_defaultZone"},"syncToken":"\#(workToken)"}]}"#,
            webAuthToken: token)
        #expect(try crossed.json()["zones"]?[0]?["serverErrorCode"] == "BAD_REQUEST")
        let next = try server.post(
            "private", "records/changes", #"{"zoneID":{"zoneName":"Work"},"syncToken":"\#(workToken)"}"#, webAuthToken: token)
        #expect(try next.json()["records"]?[0]?["recordName"] == "w2")

        try server.store.resetDevelopment(server.container)
        let again = try server.signIn()
        let expired = try server.post("private", "records/changes", #"{"syncToken":"\#(workToken)"}"#, webAuthToken: again)
        #expect(expired.status == 400)
        #expect(try expired.json()["serverErrorCode"] == "CHANGE_TOKEN_EXPIRED")
        #expect(try expired.json()["reason"]?.stringValue?.contains("fetch everything again") == true)
        let expiredZone = try server.post("private", "changes/zone", #"{"zones":[{"syncToken":"\#(workToken)"}]}"#, webAuthToken: again)
        #expect(try expiredZone.json()["zones"]?[0]?["serverErrorCode"] == "CHANGE_TOKEN_EXPIRED")
    }

    @Test func aQueryOrLookupHandsTheZonesCurrentTokenToFollowFrom() throws {
        let server = try APITestServer()
        try server.defineNote("title STRING QUERYABLE")
        let token = try server.signIn()
        try Self.create(server, "public", "n1", token: token)
        let query = try server.send(
            "POST", server.authorized(server.path("public", "records/query")) + "&getCurrentSyncToken=true",
            body: #"{"query":{"recordType":"Note"}}"#)
        #expect(query.status == 200, "\(query.text)")
        let fromQuery = try #require(try query.json()["syncToken"]?.stringValue)
        #expect(try query.json()["records"]?[0]?["recordName"] == "n1")
        let lookup = try server.send(
            "POST", server.authorized(server.path("public", "records/lookup")) + "&getCurrentSyncToken=true",
            body: #"{"records":[{"recordName":"n1"}]}"#)
        #expect(try lookup.json()["syncToken"]?.stringValue == fromQuery, "nothing changed between the two")
        let plain = try server.post("public", "records/lookup", #"{"records":[{"recordName":"n1"}]}"#)
        #expect(try plain.json()["syncToken"] == nil, "only when asked")

        try Self.create(server, "public", "n2", token: token)
        let next = try server.post("public", "records/changes", #"{"syncToken":"\#(fromQuery)"}"#)
        #expect(try next.json()["records"]?.arrayValue?.map { $0["recordName"] } == ["n2"], "the feed goes on from what the query held")
    }

    @Test func theWorldIsAskedToSignInForAPrivateFeed() throws {
        let server = try APITestServer()
        for operation in ["records/changes", "changes/zone", "changes/database", "zones/changes"] {
            let response = try server.post("private", operation, #"{"zones":[{}]}"#)
            #expect(response.status == 421, "\(operation): \(response.text)")
            #expect(try response.json()["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        }
        let malformed = try server.post("public", "changes/zone", #"{"zones":"all"}"#)
        #expect(malformed.status == 400)
    }

    @Test func changesDatabaseAndZonesChangesListZonesWithTheirTokensAndTombstones() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let zones = try server.post(
            "private", "zones/modify",
            """
            {"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Work"}}},
                           {"operationType":"create","zone":{"zoneID":{"zoneName":"Home"}}}]}
            """, webAuthToken: token)
        #expect(zones.status == 200, "\(zones.text)")
        let first = try server.post("private", "changes/database", "{}", webAuthToken: token)
        #expect(first.status == 200, "\(first.text)")
        let body = try first.json()
        #expect(body["zones"]?.arrayValue?.map { $0["zoneID"]?["zoneName"] } == ["Work", "Home"] && body["moreComing"] == false)
        #expect(body["zones"]?[0]?["syncToken"]?.stringValue != nil && body["zones"]?[0]?["zoneID"]?["zoneType"] == "REGULAR_CUSTOM_ZONE")
        let syncToken = try #require(body["syncToken"]?.stringValue)

        try Self.create(server, "private", "w1", token: token, zone: "Work")
        let deleted = try server.post(
            "private", "zones/modify", #"{"operations":[{"operationType":"delete","zone":{"zoneID":{"zoneName":"Home"}}}]}"#,
            webAuthToken: token)
        #expect(deleted.status == 200, "\(deleted.text)")
        let next = try server.post("private", "changes/database", #"{"syncToken":"\#(syncToken)","resultsLimit":1}"#, webAuthToken: token)
        let page = try next.json()
        #expect(page["zones"]?.arrayValue?.map { $0["zoneID"]?["zoneName"] } == ["Work"] && page["moreComing"] == true)
        let workToken = try #require(page["zones"]?[0]?["syncToken"]?.stringValue)
        let work = try server.post(
            "private", "changes/zone", #"{"zones":[{"zoneID":{"zoneName":"Work"},"syncToken":"\#(workToken)"}]}"#,
            webAuthToken: token)
        #expect(try work.json()["zones"]?[0]?["records"] == [], "the zone's token in the database feed is where the zone stands")

        // zones/changes, as MistKit sends it (syncToken) and as Apple documents it (metaSyncToken).
        let pageToken = try #require(page["syncToken"]?.stringValue)
        for key in ["syncToken", "metaSyncToken"] {
            let older = try server.post("private", "zones/changes", #"{"\#(key)":"\#(pageToken)"}"#, webAuthToken: token)
            #expect(older.status == 200, "\(older.text)")
            let answer = try older.json()
            #expect(answer["zones"]?.arrayValue?.count == 1 && answer["zones"]?[0]?["deleted"] == true)
            #expect(
                answer["zones"]?[0]?["zoneID"]?["zoneName"] == "Home"
                    && answer["zones"]?[0]?["zoneID"]?["ownerRecordName"]?.stringValue?.hasPrefix("_") == true)
            #expect(answer["syncToken"] != nil && answer["syncToken"] == answer["metaSyncToken"] && answer["moreComing"] == false)
        }
        let forged = try server.post("private", "changes/database", #"{"syncToken":"\#(workToken)"}"#, webAuthToken: token)
        #expect(try forged.status == 400 && forged.json()["serverErrorCode"] == "BAD_REQUEST", "a zone's token is refused: \(forged.text)")
    }
}
