import CloudKitWire
import CloudStore
import Foundation
import TestSupport
import Testing

@testable import Console

/// The Backups page and its management routes: a backup taken now is listed with its size and
/// manifest check, downloads as the file it is, and is deleted after the confirmation step;
/// each action is audited, and refused to a caller who is not a signed-in operator.
@Suite struct BackupsPagesTests {
    private func backupFiles(_ server: ConsoleTestServer) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: server.directory + "/backups")) ?? []).sorted()
    }

    @Test func aBackupIsTakenListedDownloadedAndDeletedAfterConfirming() throws {
        let server = try ConsoleTestServer(backups: true)
        let (cookie, csrf) = try server.signedInOperator()
        let empty = try server.get("/console/backups", headers: [cookie])
        #expect(empty.status == 200 && empty.text.contains("No backups yet."))

        let taken = try server.post("/console/backups", form: [("csrfToken", csrf)], headers: [cookie])
        #expect(taken.status == 303)
        let name = try #require(backupFiles(server).first)
        let bytes = try #require(FileManager.default.contents(atPath: server.directory + "/backups/" + name))
        let listed = try server.get("/console/backups", headers: [cookie]).text
        #expect(listed.contains(name) && listed.contains("/console/backups/\(name)/download"))
        #expect(listed.contains(TestBackend.isSQLite ? ">ok<" : ">not checked<"))

        let download = try server.get("/console/backups/\(name)/download", headers: [cookie])
        #expect(download.status == 200 && download.body == Array(bytes))
        #expect(download.header("Content-Disposition") == "attachment; filename=\"\(name)\"")

        let confirm = try server.post("/console/backups/\(name)/delete", form: [("csrfToken", csrf)], headers: [cookie])
        #expect(confirm.status == 200 && confirm.text.contains("Delete this backup?") && confirm.text.contains("<code>\(name)</code>"))
        #expect(backupFiles(server) == [name], "nothing deleted before the confirmation")
        let deleted = try server.post(
            "/console/backups/\(name)/delete", form: [("csrfToken", csrf), ("confirmed", "yes")], headers: [cookie])
        #expect(deleted.status == 303)
        #expect(backupFiles(server) == [])
        let audit = try server.store.auditEntries(AuditFilter(limit: 10)).map(\.action)
        #expect(audit.prefix(3) == ["backup.delete", "backup.download", "backup.take"])
    }

    @Test func theManagementRoutesTakeListDownloadAndDeleteABackup() throws {
        let server = try ConsoleTestServer(backups: true)
        _ = try server.signedInOperator()
        let bearer = ("Authorization", "Bearer " + (try server.store.createManagementToken(for: "root", name: "t").text))
        let taken = try HTTPTestClient.send(port: server.port, method: "POST", target: "/admin/v1/backups", headers: [bearer])
        #expect(taken.status == 201)
        let backup = try BackupView(json: try JSONValue.parse(taken.body))
        let listed = try BackupsView(json: try JSONValue.parse(try server.get("/admin/v1/backups", headers: [bearer]).body))
        #expect(listed.backups.map(\.name) == [backup.name] && listed.backups.map(\.bytes) == [backup.bytes])
        #expect(listed.keep == 7 && listed.location.hasSuffix("/backups"))
        let download = try server.get("/admin/v1/backups/\(backup.name)", headers: [bearer])
        #expect(download.status == 200 && Int64(download.body.count) == backup.bytes)
        let deleted = try HTTPTestClient.send(
            port: server.port, method: "DELETE", target: "/admin/v1/backups/\(backup.name)", headers: [bearer])
        #expect(deleted.status == 200 && backupFiles(server) == [])
        let missing = try HTTPTestClient.send(
            port: server.port, method: "DELETE", target: "/admin/v1/backups/\(backup.name)", headers: [bearer])
        #expect(missing.status == 404)
    }

    @Test func aCallerWhoIsNotASignedInOperatorIsRefusedAndNothingIsTaken() throws {
        let server = try ConsoleTestServer(backups: true)
        let (cookie, csrf) = try server.signedInOperator()
        _ = try server.post("/console/backups", form: [("csrfToken", csrf)], headers: [cookie])
        let name = try #require(backupFiles(server).first)

        // No session, no token, a wrong token, a session without its CSRF token.
        #expect(try server.get("/console/backups").status == 303)
        #expect(try server.get("/console/backups/\(name)/download").status == 303)
        #expect(try server.post("/console/backups", form: [("csrfToken", csrf)]).status == 303)
        #expect(try server.post("/console/backups", form: [], headers: [cookie]).status == 403)
        #expect(try server.post("/console/backups/\(name)/delete", form: [("confirmed", "yes")], headers: [cookie]).status == 403)
        for (method, target) in [
            ("GET", "/admin/v1/backups"), ("POST", "/admin/v1/backups"), ("GET", "/admin/v1/backups/\(name)"),
            ("DELETE", "/admin/v1/backups/\(name)"),
        ] {
            for headers in [[], [("Authorization", "Bearer not-a-token")]] {
                let answer = try HTTPTestClient.send(port: server.port, method: method, target: target, headers: headers)
                #expect(answer.status == 401, "\(method) \(target)")
                #expect(!answer.text.contains("PGDMP") && answer.body.count < 4096, "no backup in the answer")
            }
        }
        #expect(backupFiles(server) == [name], "nothing taken or deleted")
        #expect(try server.store.auditEntries(AuditFilter(limit: 10)).map(\.action).filter { $0.hasPrefix("backup.") } == ["backup.take"])
    }
}
