import CloudKitWire
import Foundation
import TestSupport
import Testing

@testable import CloudStore
@testable import WebServices

/// Asset blobs held by the record history: a record restored from the trash or reverted to an
/// older version gives back an asset that still downloads after the collector ran, and a blob
/// goes once retention forgot the last version holding it.
@Suite struct HistoryAssetsAPITests {
    /// Collects as if every receipt had expired.
    private static func collect(_ server: APITestServer) throws -> Int {
        try server.store.collectUnreferencedAssets(server.container, .development, createdBefore: .max)
    }

    /// The bytes of `record`'s `image` as a reader downloads them, looked up afresh.
    private static func downloaded(_ server: APITestServer, _ token: String, _ record: String, zone: String? = nil) throws -> APIResponse {
        let database = zone == nil ? "public" : "private"
        let zoneID = zone.map { #","zoneID":{"zoneName":"\#($0)"}"# } ?? ""
        let lookup = try server.post(
            database, "records/lookup", #"{"records":[{"recordName":"\#(record)"}]\#(zoneID)}"#, webAuthToken: zone == nil ? nil : token)
        let url = try #require(
            try lookup.json()["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue, "\(lookup.text)")
        return try AssetsAPITests.download(server, url)
    }

    private static func forceDelete(_ server: APITestServer, _ token: String, _ record: String) throws {
        let deleted = try server.post(
            "public", "records/modify", #"{"operations":[{"operationType":"forceDelete","record":{"recordName":"\#(record)"}}]}"#,
            webAuthToken: token)
        #expect(try deleted.json()["records"]?[0]?["deleted"] == true, "\(deleted.text)")
    }

    @Test func aRecordRestoredFromTheTrashGivesBackItsAssetAfterACollection() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let content = (0..<5000).map { UInt8($0 % 251) }
        _ = try AssetsAPITests.save(server, token, try AssetsAPITests.upload(server, token, content))
        try Self.forceDelete(server, token, "a1")

        #expect(try Self.collect(server) == 0, "the trashed record holds the blob")
        let outcome = try server.store.restoreFromTrash(server.container, .development, in: HistoryScope(database: .public), by: .local)
        #expect(outcome.restored == 1)
        let fetched = try Self.downloaded(server, token, "a1")
        #expect(fetched.status == 200 && fetched.body == content, "byte-identical after the restore")
    }

    @Test func aRecordRevertedToAVersionWithAnOlderAssetDownloadsIt() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let older = Array("the first picture".utf8)
        let newer = Array("the second picture, another".utf8)
        _ = try AssetsAPITests.save(server, token, try AssetsAPITests.upload(server, token, older))
        let saved = try AssetsAPITests.save(server, token, try AssetsAPITests.upload(server, token, newer))
        let tag = try #require(saved["recordChangeTag"]?.stringValue)

        #expect(try Self.collect(server) == 0, "the replaced version holds the older blob")
        let history = try server.store.history(
            ofRecord: "a1", zoneName: ZoneID.defaultZoneName, in: .public, server.container, .development, by: .local)
        let version = try #require(history.entries.first?.version)
        _ = try server.store.revert(
            recordName: "a1", zoneName: ZoneID.defaultZoneName, in: .public, toVersion: version.id, changeTag: tag, server.container,
            .development, by: .local)
        let fetched = try Self.downloaded(server, token, "a1")
        #expect(fetched.status == 200 && fetched.body == older, "the older asset, byte-identical")
    }

    @Test func aRecordInADeletedZoneGivesBackItsAssetWhenTheZoneIsRestored() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let zones = #"{"operations":[{"operationType":"KIND","zone":{"zoneID":{"zoneName":"Photos"}}}]}"#
        #expect(
            try server.post("private", "zones/modify", zones.replacingOccurrences(of: "KIND", with: "create"), webAuthToken: token).status
                == 200)
        let content = (0..<3000).map { UInt8($0 % 7) }
        let file = try AssetsAPITests.upload(server, token, content, record: "p1", database: "private")
        let body: JSONValue = [
            "zoneID": ["zoneName": "Photos"],
            "operations": [
                ["operationType": "create", "record": ["recordName": "p1", "recordType": "Note", "fields": ["image": ["value": file]]]]
            ],
        ]
        let created = try server.post("private", "records/modify", String(decoding: body.serialized(), as: UTF8.self), webAuthToken: token)
        #expect(try created.json()["records"]?[0]?["serverErrorCode"] == nil, "\(created.text)")
        #expect(
            try server.post("private", "zones/modify", zones.replacingOccurrences(of: "KIND", with: "delete"), webAuthToken: token).status
                == 200)

        #expect(try Self.collect(server) == 0, "the trashed zone's record holds the blob")
        let owner = DatabaseID.private(try #require(try server.store.user(named: server.userName, in: server.container)).userRecordName)
        let outcome = try server.store.restoreFromTrash(
            server.container, .development, in: HistoryScope(database: owner, zoneName: "Photos"), by: .local)
        #expect(outcome.restored == 1)
        let fetched = try Self.downloaded(server, token, "p1", zone: "Photos")
        #expect(fetched.status == 200 && fetched.body == content)
    }

    @Test func aBlobGoesOnceRetentionForgotTheLastVersionHoldingIt() throws {
        let clock = TestClock()
        let server = try APITestServer(configure: { $0.clock = { clock.tick() } })
        try server.defineNote(AssetsAPITests.schema)
        let token = try server.signIn()
        let kept = Array("kept by the live record".utf8)
        _ = try AssetsAPITests.save(
            server, token, try AssetsAPITests.upload(server, token, Array("deleted, then forgotten".utf8)), record: "gone")
        _ = try AssetsAPITests.save(server, token, try AssetsAPITests.upload(server, token, kept), record: "live")
        try Self.forceDelete(server, token, "gone")
        #expect(try Self.collect(server) == 0)

        clock.advance(by: server.store.configuration.historyRetention + 1)
        #expect(try server.store.forgetExpiredVersions() == 1)
        #expect(try Self.collect(server) == 1, "the forgotten version's blob goes")
        #expect(try Self.collect(server) == 0)
        let fetched = try Self.downloaded(server, token, "live")
        #expect(fetched.status == 200 && fetched.body == kept, "the live record's blob stays")
    }
}
