import CloudKitWire
import CloudStore
import Foundation
import HTTPServer
import TestSupport
import Testing

@testable import WebServices

/// The links the API hands out (sign-in `redirectURL`, `webcourierURL`, upload and download
/// URLs) are built on the listen address, or a `Host` the server was told to answer to, never
/// on a forged `Host`.
@Suite struct LinkHostAPITests {
    /// Every link an answer to `host` holds: the sign-in redirect, the courier URL, an upload
    /// URL and a download URL.
    static func links(_ server: APITestServer, host: String) throws -> [String: String] {
        let headers = ["Host": host, "Content-Type": "text/plain"]
        func post(_ database: String, _ operation: String, _ body: String, token: String? = nil) throws -> JSONValue {
            let target = server.authorized(server.path(database, operation), webAuthToken: token)
            return try server.send("POST", target, body: body, headers: headers).json()
        }
        let token = try server.signIn()
        let content = Array("a file".utf8)
        let ticket = try #require(
            try server.store.database(server.container, .development, .public, as: .operator())
                .assetUploadTickets([AssetUploadRequest(recordName: "a1", recordType: "Note", fieldName: "image")]).first)
        let uploaded = try server.store.uploadAsset(ticket: ticket.ticket, content: content)
        let singleFile: JSONValue = [
            "fileChecksum": .string(uploaded.fileChecksum), "size": .integer(uploaded.size), "receipt": .string(uploaded.receipt),
        ]
        _ = try AssetsAPITests.save(server, token, singleFile)
        let caller = try server.send("GET", server.authorized(server.path("private", "users/caller")), headers: headers).json()
        let tokens = try post("public", "tokens/create", "{}", token: token)
        let upload = try post("public", "assets/upload", #"{"tokens":[{"recordType":"Note","fieldName":"image"}]}"#, token: token)
        let lookup = try post("public", "records/lookup", #"{"records":[{"recordName":"a1"}]}"#, token: token)
        return [
            "redirectURL": try #require(caller["redirectURL"]?.stringValue, "\(caller)"),
            "webcourierURL": try #require(tokens["webcourierURL"]?.stringValue, "\(tokens)"),
            "upload url": try #require(upload["tokens"]?[0]?["url"]?.stringValue, "\(upload)"),
            "downloadURL": try #require(lookup["records"]?[0]?["fields"]?["image"]?["value"]?["downloadURL"]?.stringValue, "\(lookup)"),
        ]
    }

    @Test func aForgedHostGetsLinksOnTheListenAddress() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        for (name, link) in try Self.links(server, host: "evil.example") {
            #expect(link.hasPrefix("http://127.0.0.1:\(server.port)/"), "\(name): \(link)")
            #expect(!link.contains("evil.example"), "\(name): \(link)")
        }
    }

    @Test func theListenAddressAndItsLoopbackNamesAreUsedAsSent() throws {
        let server = try APITestServer()
        try server.defineNote(AssetsAPITests.schema)
        for host in ["localhost:\(server.port)", "LocalHost:\(server.port)", "127.0.0.1:\(server.port)"] {
            for (name, link) in try Self.links(server, host: host) {
                #expect(link.hasPrefix("http://\(host)/"), "\(name): \(link)")
            }
        }
        for (name, link) in try Self.links(server, host: "localhost:1") {
            #expect(link.hasPrefix("http://127.0.0.1:\(server.port)/"), "another port is not this server: \(name): \(link)")
        }
    }

    @Test func anAllowedHostIsUsedAndThePublicURLWins() throws {
        let allowed = try APITestServer(configureAPI: { $0.allowedHosts = ["cloud.example.com"] })
        try allowed.defineNote(AssetsAPITests.schema)
        for (name, link) in try Self.links(allowed, host: "cloud.example.com") {
            #expect(link.hasPrefix("http://cloud.example.com/"), "\(name): \(link)")
        }
        for (name, link) in try Self.links(allowed, host: "evil.example") {
            #expect(link.hasPrefix("http://127.0.0.1:\(allowed.port)/"), "\(name): \(link)")
        }
        let configured = try APITestServer(configureAPI: { $0.publicURL = "https://cloud.example.com" })
        try configured.defineNote(AssetsAPITests.schema)
        for (name, link) in try Self.links(configured, host: "evil.example") {
            #expect(link.hasPrefix("https://cloud.example.com/"), "\(name): \(link)")
        }
    }
}
