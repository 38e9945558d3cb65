import Foundation
import Synchronization
import TestSupport
import Testing

@testable import CloudStore
@testable import WebServices

/// `records/modify` waits for its commit holding no worker: the writes of every request in
/// flight share one commit, and the answer is the one a worker would have sent.
@Suite(.enabled(if: TestBackend.isSQLite, "About SQLite files and the SQLite writer themselves")) struct DeferredWriteAPITests {
    @Test func moreCreatesThanWorkersShareOneCommitAndAFailingOneUndoesOnlyItself() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        _ = try server.post("public", "records/modify", create("seed", title: "seed"), webAuthToken: token)
        try server.store.limitStorage(of: server.container, headroom: 20_000)
        let storage = try server.store.environment(server.container, .development)
        let before = storage.writeStatistics

        // Hold the writer, send six times as many creates as the server has workers (4), and let
        // go once all of them wait in the writer's queue: only writes that hold no worker get there.
        let writer = HeldWriter { hold in _ = try? storage.write { _ in hold() } }
        let count = 24, failing = 5
        let responses = Mutex<[Int: Result<APIResponse, any Error>]>([:])
        let finished = DispatchGroup()
        let (port, target) = (server.port, server.authorized(server.path("public", "records/modify"), webAuthToken: token))
        for index in 0..<count {
            finished.enter()
            let body = Array(create("n\(index)", title: index == failing ? String(repeating: "x", count: 30_000) : "note \(index)").utf8)
            Thread {
                // One create alone passes the storage limit: written, then refused.
                let result = Result { try HTTPTestClient.send(port: port, method: "POST", target: target, body: body, headers: [:]) }
                responses.withLock { $0[index] = result }
                finished.leave()
            }.start()
        }
        var waited = 0
        while storage.writeStatistics.waiting < count, waited < 600 {
            Thread.sleep(forTimeInterval: 0.05)
            waited += 1
        }
        let queued = storage.writeStatistics.waiting
        writer.release()
        finished.wait()
        #expect(queued == count, "every create waits in the writer's queue, none holding a worker")

        let after = storage.writeStatistics
        #expect(after.largestGroup >= count)
        #expect(after.transactions - before.transactions == 2, "the holding job, then all \(count) creates in one transaction")
        for (index, result) in responses.withLock({ $0 }).sorted(by: { $0.key < $1.key }) {
            let response = try result.get()
            if index == failing {
                #expect(response.status == 413, "\(response.text)")
                #expect(try response.json()["serverErrorCode"] == "QUOTA_EXCEEDED")
            } else {
                #expect(response.status == 200, "\(response.text)")
                #expect(try response.json()["records"]?[0]?["recordName"] == .string("n\(index)"))
                #expect(response.header("X-Apple-CloudKit-Web-Auth-Token")?.isEmpty == false)
            }
        }
        let lookup = try server.post("public", "records/lookup", #"{"records":[{"recordName":"n\#(failing)"},{"recordName":"n0"}]}"#)
        let found = try #require(try lookup.json()["records"]?.arrayValue)
        #expect(found[0]["serverErrorCode"] == "NOT_FOUND", "the refused create left nothing")
        #expect(found[1]["recordName"] == "n0")
    }

    @Test func aDeferredAnswerKeepsCORSAndCompressionAndIsLogged() throws {
        let server = try APITestServer()
        let token = try server.signIn()
        let operations = (0..<40).map { index in
            #"{"operationType":"create","record":{"recordName":"r\#(index)","recordType":"Note","fields":{"title":{"value":"a title long enough to compress \#(index)"}}}}"#
        }
        let response = try server.send(
            "POST", server.authorized(server.path("public", "records/modify"), webAuthToken: token),
            body: #"{"operations":[\#(operations.joined(separator: ","))]}"#,
            headers: ["Origin": "https://app.example.com", "Accept-Encoding": "gzip"])
        #expect(response.status == 200)
        #expect(response.header("Access-Control-Allow-Origin") == "https://app.example.com")
        #expect(response.header("Access-Control-Expose-Headers")?.contains("X-Apple-CloudKit-Web-Auth-Token") == true)
        #expect(response.header("Content-Encoding") == "gzip")
        #expect(response.header("Vary")?.contains("Origin") == true && response.header("Vary")?.contains("Accept-Encoding") == true)
        #expect(response.header("X-Apple-Request-UUID")?.isEmpty == false)
        try server.store.requestLog.flush()
        let entries = try server.store.requestLog.entries(
            RequestLogFilter(container: server.container.rawValue, operation: "records/modify"))
        #expect(entries.count == 1)
        #expect(entries.first?.status == 200 && entries.first?.user != nil)
    }

    private func create(_ name: String, title: String) -> String {
        #"{"operations":[{"operationType":"create","record":{"recordName":"\#(name)","recordType":"Note","fields":{"title":{"value":"\#(title)"}}}}]}"#
    }
}
