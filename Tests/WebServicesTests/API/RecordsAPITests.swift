import CloudStore
import Testing

@testable import WebServices

@Suite struct RecordsAPITests {
    @Test func theWorldIsAskedToSignInBeforeWriting() throws {
        let server = try APITestServer()
        let response = try server.post(
            "public", "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordType":"Note","fields":{"title":{"value":"x"}}}}]}"#)
        #expect(response.status == 421)
        let body = try response.json()
        #expect(body["serverErrorCode"] == "AUTHENTICATION_REQUIRED")
        #expect(body["uuid"]?.stringValue?.isEmpty == false)
        #expect(body["redirectURL"]?.stringValue == "http://127.0.0.1:\(server.port)/signin?ckAPIToken=\(server.apiToken.token)")
    }

    @Test func aSignedInUserCreatesAndGetsTheRecordDictionaryAndARotatedToken() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let response = try server.post(
            "public", "records/modify",
            """
            {"operations":[{"operationType":"create","record":{"recordName":"n1","recordType":"Note",
              "fields":{"title":{"value":"Hello","type":"STRING"},"count":{"value":3},"ratio":{"value":0.5},
                        "when":{"value":1422312944104,"type":"TIMESTAMP"},"tags":{"value":["a","b"]}}}}],
             "zoneID":{"zoneName":"_defaultZone"},"unknownKey":true}
            """, webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
        let record = try #require(try response.json()["records"]?[0])
        #expect(record["recordName"] == "n1")
        #expect(record["recordType"] == "Note")
        #expect(record["recordChangeTag"]?.stringValue?.isEmpty == false)
        #expect(record["fields"]?["title"] == ["value": "Hello", "type": "STRING"])
        #expect(record["fields"]?["count"] == ["value": 3, "type": "INT64"])
        #expect(record["fields"]?["ratio"] == ["value": 0.5, "type": "DOUBLE"])
        #expect(record["fields"]?["when"] == ["value": 1_422_312_944_104, "type": "TIMESTAMP"])
        #expect(record["fields"]?["tags"] == ["value": ["a", "b"], "type": "STRING_LIST"])
        let user = try #require(try server.store.users(server.container).first?.userRecordName)
        #expect(record["created"]?["userRecordName"]?.stringValue == user)
        #expect(record["created"]?["timestamp"]?.int64Value != nil)
        #expect(record["zoneID"] == ["zoneName": "_defaultZone", "ownerRecordName": "_defaultOwner", "zoneType": "DEFAULT_ZONE"])
        let rotated = try #require(response.header("X-Apple-CloudKit-Web-Auth-Token"))
        #expect(rotated != token)
        #expect(try server.store.session(forWebAuthToken: rotated, in: server.container, .development).userRecordName == user)
        // The old token stays valid in its grace period.
        #expect(try server.post("public", "records/lookup", #"{"records":[{"recordName":"n1"}]}"#, webAuthToken: token).status == 200)
    }

    @Test func aWriterWhoMayNotReadGetsOnlyTheNameChangeTagAndZoneOfASave() throws {
        let server = try APITestServer()
        try server.store.importSchema(
            """
            DEFINE SCHEMA
                CREATE ROLE Moderator;
                RECORD TYPE Diary ("___recordID" REFERENCE QUERYABLE, text STRING, secretnum INT64,
                    GRANT READ, WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT WRITE TO "Moderator");
            """, into: server.container, .development)
        let ua = try server.signIn()
        try server.store.addUser(server.container, name: "ub", password: "a long passphrase")
        let ub = try #require(try server.store.user(named: "ub", in: server.container)?.userRecordName)
        try server.store.setRoles(["Moderator"], of: ub, in: server.container, .development)
        let ubToken = try server.store.signIn(server.container, .development, name: "ub", password: "a long passphrase").webAuthToken
        let created = try server.post(
            "public", "records/modify",
            """
            {"operations":[{"operationType":"create","record":{"recordName":"d1","recordType":"Diary",
              "fields":{"text":{"value":"alice private diary"},"secretnum":{"value":4711}}}}]}
            """, webAuthToken: ua)
        #expect(created.status == 200, "\(created.text)")

        // The review's proof: ub may write d1 but not read it.
        let lookup = try server.post("public", "records/lookup", #"{"records":[{"recordName":"d1"}]}"#, webAuthToken: ubToken)
        #expect(try lookup.json()["records"]?[0]?["serverErrorCode"] == "ACCESS_DENIED")
        let saved = try server.post(
            "public", "records/modify",
            #"{"operations":[{"operationType":"forceUpdate","record":{"recordName":"d1","fields":{}}}]}"#, webAuthToken: ubToken)
        #expect(saved.status == 200, "\(saved.text)")
        let record = try #require(try saved.json()["records"]?[0])
        #expect(record.objectValue?.keys == ["recordName", "recordChangeTag", "zoneID"], "\(saved.text)")
        #expect(record["recordName"] == "d1" && record["recordChangeTag"]?.stringValue?.isEmpty == false)
        #expect(!saved.text.contains("alice private diary") && !saved.text.contains("4711"))
    }

    @Test func desiredKeysEmptyLeavesFieldsOutAsInTheReferenceExample() throws {
        let server = try APITestServer()
        let response = try server.post(
            "public", "records/modify",
            """
            {"operations":[{"operationType":"create","record":{"recordType":"Artwork","fields":{"title":{"value":"x"}}}}],"desiredKeys":[]}
            """, webAuthToken: try server.signIn())
        let record = try #require(try response.json()["records"]?[0])
        #expect(record["fields"] == nil)
        #expect(record["recordName"]?.stringValue?.count == 36)
        #expect(record["created"] != nil && record["modified"] != nil && record["recordChangeTag"] != nil)
    }

    @Test func everyFieldTypeTravelsBothWays() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        // An asset is taken only with the receipt of a real upload.
        let singleFile = try AssetsAPITests.upload(server, token, [1, 2, 3], record: "all")
        let asset = String(decoding: singleFile.serialized(), as: UTF8.self)
        let fields = """
            "s":{"value":"text"},"i":{"value":"42","type":"INT64"},"d":{"value":2.5,"type":"DOUBLE"},
            "t":{"value":1000,"type":"TIMESTAMP"},"b":{"value":"AAEC/w==","type":"BYTES"},
            "r":{"value":{"recordName":"other","action":"NONE"},"type":"REFERENCE"},
            "a":{"value":\(asset),"type":"ASSETID"},
            "l":{"value":{"latitude":37.33,"longitude":-122.03,"altitude":10},"type":"LOCATION"},
            "il":{"value":[1,2],"type":"INT64_LIST"},"dl":{"value":[1,2.5]},"tl":{"value":[5],"type":"TIMESTAMP_LIST"},
            "bl":{"value":["AA=="],"type":"BYTES_LIST"},"rl":{"value":[{"recordName":"x","action":"NONE"}],"type":"REFERENCE_LIST"},
            "ll":{"value":[{"latitude":1,"longitude":2}],"type":"LOCATION_LIST"},"el":{"value":[],"type":"STRING_LIST"}
            """
        let created = try server.post(
            "public", "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"all","recordType":"All","fields":{\#(fields)}}}]}"#,
            webAuthToken: token)
        #expect(created.status == 200, "\(created.text)")
        let stored = try #require(
            try server.post("public", "records/lookup", #"{"records":[{"recordName":"all"}]}"#).json()["records"]?[0]?["fields"])
        #expect(stored["s"] == ["value": "text", "type": "STRING"])
        #expect(stored["i"] == ["value": 42, "type": "INT64"])
        #expect(stored["d"] == ["value": 2.5, "type": "DOUBLE"])
        #expect(stored["t"] == ["value": 1000, "type": "TIMESTAMP"])
        #expect(stored["b"] == ["value": "AAEC/w==", "type": "BYTES"])
        #expect(stored["r"] == ["value": ["recordName": "other", "action": "NONE"], "type": "REFERENCE"])
        #expect(stored["a"]?["type"] == "ASSETID" && stored["a"]?["value"]?["fileChecksum"] == singleFile["fileChecksum"])
        #expect(stored["a"]?["value"]?["size"] == 3 && stored["a"]?["value"]?["receipt"] == nil)
        #expect(stored["a"]?["value"]?["downloadURL"]?.stringValue?.hasPrefix("http://127.0.0.1:\(server.port)/assets/1/download/") == true)
        #expect(stored["l"] == ["value": ["latitude": 37.33, "longitude": -122.03, "altitude": 10.0], "type": "LOCATION"])
        #expect(stored["il"] == ["value": [1, 2], "type": "INT64_LIST"])
        #expect(stored["dl"] == ["value": [1.0, 2.5], "type": "DOUBLE_LIST"])
        #expect(stored["tl"] == ["value": [5], "type": "TIMESTAMP_LIST"])
        #expect(stored["bl"] == ["value": ["AA=="], "type": "BYTES_LIST"])
        #expect(stored["rl"] == ["value": [["recordName": "x", "action": "NONE"]], "type": "REFERENCE_LIST"])
        #expect(stored["ll"] == ["value": [["latitude": 1.0, "longitude": 2.0]], "type": "LOCATION_LIST"])
        #expect(stored["el"] == ["value": [], "type": "STRING_LIST"])

        // Hints are only hints: a client's own type names, or none, read as the declared type.
        let updated = try server.post(
            "public", "records/modify",
            """
            {"operations":[{"operationType":"forceUpdate","record":{"recordName":"all",
              "fields":{"t":{"value":2000,"type":"DATETIME"},"i":{"value":7,"type":"INT"},"d":{"value":3},"b":{"value":"AQ=="},"s":{"value":null}}}}]}
            """, webAuthToken: token)
        let fields2 = try #require(try updated.json()["records"]?[0]?["fields"], "\(updated.text)")
        #expect(fields2["t"] == ["value": 2000, "type": "TIMESTAMP"])
        #expect(fields2["i"] == ["value": 7, "type": "INT64"])
        #expect(fields2["d"] == ["value": 3.0, "type": "DOUBLE"])
        #expect(fields2["b"] == ["value": "AQ==", "type": "BYTES"])
        #expect(fields2["s"] == nil)

        let strings = try server.post(
            "public", "records/lookup", #"{"records":[{"recordName":"all","desiredKeys":["i","d","t"]}],"numbersAsStrings":true}"#)
        let asStrings = try #require(try strings.json()["records"]?[0])
        #expect(
            asStrings["fields"] == [
                "d": ["value": "3.0", "type": "DOUBLE"], "i": ["value": "7", "type": "INT64"], "t": ["value": "2000", "type": "TIMESTAMP"],
            ])
        #expect(asStrings["created"]?["timestamp"]?.stringValue != nil)
    }

    @Test func perRecordErrorsComeInside200() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let created = try server.post(
            "public", "records/modify",
            #"{"operations":[{"operationType":"create","record":{"recordName":"n","recordType":"Note","fields":{"v":{"value":1}}}},{"operationType":"create","record":{"recordName":"m","recordType":"Note"}}]}"#,
            webAuthToken: token)
        let tag = try #require(try created.json()["records"]?[0]?["recordChangeTag"]?.stringValue)
        let response = try server.post(
            "public", "records/modify",
            """
            {"operations":[
              {"operationType":"update","record":{"recordName":"n","recordChangeTag":"stale","fields":{"v":{"value":2}}}},
              {"operationType":"update","record":{"recordName":"missing","recordChangeTag":"1","fields":{"v":{"value":2}}}},
              {"operationType":"create","record":{"recordName":"bad","recordType":"Note","fields":{"v":{"value":"text"}}}},
              {"operationType":"forceDelete","record":{"recordName":"m"}}]}
            """, webAuthToken: token)
        #expect(response.status == 200, "\(response.text)")
        let records = try #require(try response.json()["records"]?.arrayValue)
        #expect(records[0]["serverErrorCode"] == "CONFLICT")
        #expect(records[0]["recordName"] == "n")
        #expect(records[0]["serverRecord"]?["recordChangeTag"]?.stringValue == tag)
        #expect(records[1] == ["recordName": "missing", "reason": "Record not found", "serverErrorCode": "NOT_FOUND"])
        #expect(records[2]["serverErrorCode"] == "BAD_REQUEST")
        #expect(
            records[3] == [
                "recordName": "m", "deleted": true,
                "zoneID": ["zoneName": "_defaultZone", "ownerRecordName": "_defaultOwner", "zoneType": "DEFAULT_ZONE"],
            ])

        let lookup = try server.post("public", "records/lookup", #"{"records":[{"recordName":"m"}]}"#)
        #expect(try lookup.json()["records"]?[0] == ["recordName": "m", "reason": "Record not found", "serverErrorCode": "NOT_FOUND"])
    }

    @Test func atomicBatchesInACustomZoneReportAtomicErrors() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        #expect(
            try server.post(
                "private", "zones/modify", #"{"operations":[{"operationType":"create","zone":{"zoneID":{"zoneName":"Notes"}}}]}"#,
                webAuthToken: token
            ).status == 200)
        let response = try server.post(
            "private", "records/modify",
            """
            {"zoneID":{"zoneName":"Notes"},"atomic":true,"operations":[
              {"operationType":"create","record":{"recordName":"a","recordType":"Note"}},
              {"operationType":"update","record":{"recordName":"missing","recordChangeTag":"1"}}]}
            """, webAuthToken: token)
        let records = try #require(try response.json()["records"]?.arrayValue)
        #expect(records.map { $0["serverErrorCode"]?.stringValue } == ["ATOMIC_ERROR", "NOT_FOUND"])
        let lookup = try server.post(
            "private", "records/lookup", #"{"zoneID":{"zoneName":"Notes"},"records":[{"recordName":"a"}]}"#, webAuthToken: token)
        #expect(try lookup.json()["records"]?[0]?["serverErrorCode"] == "NOT_FOUND")
    }

    @Test func queriesFilterSortAndPage() throws {
        let server = try APITestServer()
        try server.defineNote(
            #"title STRING QUERYABLE SORTABLE, rank INT64 QUERYABLE SORTABLE, "___createTime" TIMESTAMP QUERYABLE SORTABLE"#)
        let token = try server.signIn()
        let operations = (1...5).map {
            #"{"operationType":"create","record":{"recordName":"n\#($0)","recordType":"Note","fields":{"title":{"value":"t\#($0)"},"rank":{"value":\#($0 % 3)}}}}"#
        }
        #expect(
            try server.post("public", "records/modify", #"{"operations":[\#(operations.joined(separator: ","))]}"#, webAuthToken: token)
                .status == 200)

        let query =
            #""query":{"recordType":"Note","filterBy":[{"comparator":"GREATER_THAN","fieldName":"rank","fieldValue":{"value":0}}],"sortBy":[{"fieldName":"rank","ascending":false},{"systemFieldName":"createdTimestamp"}]}"#
        let first = try server.post("public", "records/query", "{\(query),\"resultsLimit\":2}")
        #expect(first.status == 200, "\(first.text)")
        let firstPage = try first.json()
        #expect(firstPage["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } == ["n2", "n5"])
        let marker = try #require(firstPage["continuationMarker"]?.stringValue)
        let second = try server.post("public", "records/query", "{\(query),\"resultsLimit\":2,\"continuationMarker\":\"\(marker)\"}").json()
        #expect(second["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } == ["n1", "n4"])
        #expect(second["continuationMarker"] == nil)

        let byName = try server.post(
            "public", "records/query",
            #"{"query":{"recordType":"Note","filterBy":[{"comparator":"IN","systemFieldName":"recordName","fieldValue":{"value":[{"recordName":"n3"},{"recordName":"n1"}],"type":"REFERENCE_LIST"}}]}}"#
        ).json()
        #expect(Set(byName["records"]?.arrayValue?.compactMap { $0["recordName"]?.stringValue } ?? []) == ["n1", "n3"])

        let unindexed = try server.post(
            "public", "records/query",
            #"{"query":{"recordType":"Note","filterBy":[{"comparator":"EQUALS","fieldName":"___modTime","fieldValue":{"value":1}}]}}"#)
        #expect(unindexed.status == 400)
        #expect(try unindexed.json()["reason"] == "Field '___modTime' is not marked queryable")
        let unknownType = try server.post("public", "records/query", #"{"query":{"recordType":"Nope"}}"#)
        #expect(try unknownType.json()["reason"] == "Did not find record type: Nope")
    }

    @Test func malformedRequestsGetBadRequestNotAServerError() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let cases: [(String, String, String)] = [
            ("records/modify", "{not json", "The request body is not valid JSON"),
            ("records/modify", "[]", "The request body must be a JSON object"),
            ("records/modify", "{}", "operations is required"),
            (
                "records/modify", #"{"operations":[{"operationType":"upsert","record":{}}]}"#,
                "operations[0].operationType 'upsert' is not one of"
            ),
            ("records/modify", #"{"operations":[{"operationType":"create"}]}"#, "operations[0].record is required"),
            (
                "records/modify", #"{"operations":[{"operationType":"create","record":{"recordType":5}}]}"#,
                "operations[0].record.recordType must be a string"
            ),
            (
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordType":"N","fields":{"x":{"value":{"weird":1}}}}}]}"#,
                "cannot tell the value's type"
            ),
            (
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordType":"N","fields":{"a":{"value":{"fileChecksum":"c","size":-1},"type":"ASSETID"}}}}]}"#,
                "a.value is not a valid ASSETID value"
            ),
            (
                "records/modify",
                #"{"operations":[{"operationType":"create","record":{"recordType":"N","fields":{"a":{"value":{"fileChecksum":"c","size":"big"},"type":"ASSETID"}}}}]}"#,
                "a.value is not a valid ASSETID value"
            ),
            ("records/query", #"{"query":{}}"#, "query.recordType is required"),
            (
                "records/query",
                #"{"query":{"recordType":"N","filterBy":[{"comparator":"LIKE","fieldName":"x","fieldValue":{"value":1}}]}}"#,
                "'LIKE' is not a comparator"
            ),
            ("records/lookup", #"{"records":"n"}"#, "records must be an array"),
            (
                "zones/modify", #"{"operations":[{"operationType":"rename","zone":{"zoneID":{"zoneName":"Z"}}}]}"#,
                "is not one of create, delete"
            ),
        ]
        for (operation, body, reason) in cases {
            let response = try server.post("private", operation, body, webAuthToken: token)
            #expect(response.status == 400, "\(operation) \(body): \(response.text)")
            let json = try response.json()
            #expect(json["serverErrorCode"] == "BAD_REQUEST")
            #expect(json["reason"]?.stringValue?.contains(reason) == true, "\(json)")
        }
        let tooMany = (0...200).map { _ in #"{"operationType":"create","record":{"recordType":"N"}}"# }.joined(separator: ",")
        let limited = try server.post("public", "records/modify", #"{"operations":[\#(tooMany)]}"#, webAuthToken: token)
        #expect(limited.status == 400)
        #expect(try limited.json()["reason"] == "A request may hold at most 200 operations; this one has 201")
    }
}
