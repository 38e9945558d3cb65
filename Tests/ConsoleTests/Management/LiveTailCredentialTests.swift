import CloudStore
import Console
import Foundation
import TestSupport
import Testing

/// Review N8: a live tail of the request log ends with the credential it was opened with,
/// over a real socket: a revoked management token, a signed-out session, a removed operator.
@Suite struct LiveTailCredentialTests {
    static let tail = "/admin/v1/containers/iCloud.com.example.Tests/logs/tail"

    /// A server whose tails beat, and check their credential, five times a second.
    private static func server() throws -> ConsoleTestServer {
        let server = try ConsoleTestServer(tailHeartbeat: .milliseconds(200))
        try server.store.addOperator("root", password: "operator password")
        return server
    }

    /// Opens a tail with `credential` and reads its head.
    private static func open(_ server: ConsoleTestServer, _ target: String = tail, credential: (String, String)) throws -> RawClient {
        // A generous bound: the stream must end within a heartbeat or two, but a busy machine may be slow.
        let client = try RawClient(port: server.port, timeout: 60)
        try client.send("GET \(target) HTTP/1.1\r\nHost: test\r\n\(credential.0): \(credential.1)\r\n\r\n")
        let head = try client.readHead()
        #expect(head.status == 200 && head.header("Content-Type")?.hasPrefix("text/event-stream") == true)
        return client
    }

    /// Logs a call as the data API would, and hands it to the listeners.
    private static func call(_ server: ConsoleTestServer, _ requestID: String) throws {
        server.store.requestLog.record(
            RequestLogEntry(
                time: server.store.configuration.clock(), container: "iCloud.com.example.Tests", environment: "development",
                database: "public",
                operation: "records/query", user: "_someone", clientAddress: "192.0.2.7", status: 200, serverErrorCode: nil,
                durationMicroseconds: 5, bytesIn: 1, bytesOut: 2, requestID: requestID))
        try server.store.requestLog.flush()
    }

    /// Everything the stream sends until it ends (its last chunk); throws if it never does.
    private static func readToEnd(_ client: RawClient) throws -> String {
        var text = ""
        while let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        return text
    }

    @Test func aRevokedTokensTailEndsAndSendsNothingMore() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "watcher")
        let client = try Self.open(server, credential: ("Authorization", "Bearer " + token.text))
        try Self.call(server, "before-revocation")
        var text = ""
        while !text.contains("before-revocation"), let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        #expect(text.contains("event: request"))

        // What `cumulus operators revoke-token` runs on the data directory.
        _ = try ManagementActions(store: server.store).revokeManagementToken(token.token.id, as: .local)
        for index in 0..<3 { try Self.call(server, "after-revocation-\(index)") }
        let rest = try Self.readToEnd(client)
        #expect(!rest.contains("event: request") && !rest.contains("after-revocation"), "\(rest)")
        #expect(
            try HTTPTestClient.send(
                port: server.port, method: "GET", target: Self.tail, headers: [("Authorization", "Bearer " + token.text)]
            )
            .status == 401)
    }

    @Test func aQuietTailEndsAtTheHeartbeatAfterItsOperatorIsRemoved() throws {
        let server = try Self.server()
        try server.store.addOperator("bob", password: "operator password")
        let token = try server.store.createManagementToken(for: "bob", name: "watcher")
        let client = try Self.open(server, credential: ("Authorization", "Bearer " + token.text))
        try server.store.removeOperator("bob")
        // Nothing is logged: only the recheck at a heartbeat can end the stream.
        let rest = try Self.readToEnd(client)
        #expect(!rest.contains("event:"), "\(rest)")
    }

    @Test func aTailEndsWhenItsOperatorIsLimitedToAnotherContainer() throws {
        let server = try Self.server()
        let other = try ContainerIdentifier("iCloud.com.example.Other")
        try server.store.createContainer(other)
        try server.store.addOperator("bob", password: "operator password", role: .viewer)
        let token = try server.store.createManagementToken(for: "bob", name: "watcher")
        let client = try Self.open(server, credential: ("Authorization", "Bearer " + token.text))
        try server.store.setOperatorRole(.viewer, containers: [other], of: "bob")
        try Self.call(server, "after-the-change")
        let rest = try Self.readToEnd(client)
        #expect(!rest.contains("after-the-change"), "\(rest)")
    }

    @Test func aConsoleTailEndsWhenItsSessionSignsOut() throws {
        let server = try Self.server()
        let signedIn = try server.store.signInOperator("root", password: "operator password", clientAddress: nil)
        let client = try Self.open(
            server, "/console/containers/iCloud.com.example.Tests/development/logs/tail",
            credential: ("Cookie", "cumulus_console=\(signedIn.secret)"))
        try server.store.signOutOperator(secret: signedIn.secret)
        try Self.call(server, "after-sign-out")
        let rest = try Self.readToEnd(client)
        #expect(!rest.contains("after-sign-out"), "\(rest)")
    }

    @Test func aTailWhoseCredentialHoldsKeepsStreaming() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "watcher")
        let client = try Self.open(server, credential: ("Authorization", "Bearer " + token.text))
        // Heartbeats come and go, each checking the token; it still holds, so events keep coming.
        var text = ""
        while text.components(separatedBy: ": heartbeat").count < 4, let chunk = try client.readChunk() {
            text += String(decoding: chunk, as: UTF8.self)
        }
        try Self.call(server, "still-watched")
        while !text.contains("still-watched"), let chunk = try client.readChunk() { text += String(decoding: chunk, as: UTF8.self) }
        #expect(text.contains("still-watched"))
        client.close()
    }
}
