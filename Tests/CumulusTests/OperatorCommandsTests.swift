import CloudStore
import Foundation
import TestSupport
import Testing

@Suite struct OperatorCommandsTests {
    @Test func operatorsAndManagementTokensAreManagedFromTheCommandLine() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let empty = try CumulusBinary.run(["operators", "list", "--data-dir", data])
        #expect(empty.output.contains("No console operator yet"))

        let added = try CumulusBinary.run(["operators", "add", "alice", "--data-dir", data], input: "a long passphrase\n")
        #expect(added.status == 0, "\(added.error)")
        let short = try CumulusBinary.run(["operators", "add", "bob", "--data-dir", data], input: "short\n")
        #expect(short.status != 0)
        #expect(short.error.contains("at least 10 characters"))
        let noPassword = try CumulusBinary.run(["operators", "add", "bob", "--data-dir", data], input: "")
        #expect(noPassword.error.contains("standard input"))
        #expect(try CumulusBinary.run(["operators", "list", "--data-dir", data]).output.hasPrefix("alice\tadded "))

        let store = try CloudStore(configuration: CloudStoreConfiguration(dataDirectory: data))
        let created = try CumulusBinary.run(["operators", "token", "alice", "--name", "deploy script", "--data-dir", data])
        #expect(created.status == 0, "\(created.error)")
        let text = created.output.trimmingCharacters(in: .whitespacesAndNewlines)
        let token = try store.managementToken(text: text)
        #expect(token.operatorName == "alice" && token.name == "deploy script")
        let listed = try CumulusBinary.run(["operators", "tokens", "--data-dir", data])
        #expect(listed.output.hasPrefix("\(token.id)\talice\tdeploy script\t"))
        #expect(!listed.output.contains(text))

        #expect(try CumulusBinary.run(["operators", "revoke-token", token.id, "--data-dir", data]).status == 0)
        #expect(throws: CloudStoreError.self) { try store.managementToken(text: text) }

        let session = try store.signInOperator("alice", password: "a long passphrase", clientAddress: nil)
        #expect(try CumulusBinary.run(["operators", "password", "alice", "--data-dir", data], input: "another long one\n").status == 0)
        #expect(throws: CloudStoreError.self) { try store.operatorSession(secret: session.secret) }
        #expect(throws: CloudStoreError.self) { try store.signInOperator("alice", password: "a long passphrase", clientAddress: nil) }

        let second = try CumulusBinary.run(["operators", "token", "alice", "--data-dir", data]).output.trimmingCharacters(
            in: .whitespacesAndNewlines)
        #expect(try CumulusBinary.run(["operators", "remove", "alice", "--data-dir", data]).status == 0)
        #expect(throws: CloudStoreError.self) { try store.managementToken(text: second) }
        let gone = try CumulusBinary.run(["operators", "remove", "alice", "--data-dir", data])
        #expect(gone.status != 0 && gone.error.contains("No operator named 'alice'"))
    }

    /// Review N12: every command-line change to operators, management tokens and the server
    /// secret joins the audit trail, as the local command line, on SQLite and on PostgreSQL.
    @Test func everyOperatorTokenAndSecretChangeIsAudited() throws {
        let directory = try TemporaryDirectory()
        let data = directory.path + "/data"
        let database = TestBackend.current == .postgres ? try TestPostgres.makeDatabase() : nil
        let environment = database.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
        func cumulus(_ arguments: String..., input: String? = nil) throws -> String {
            let run = try CumulusBinary.run(arguments + ["--data-dir", data], input: input, environment: environment)
            #expect(run.status == 0, "\(arguments): \(run.error)")
            return run.output.trimmingCharacters(in: .whitespacesAndNewlines)
        }
        _ = try cumulus("operators", "add", "alice", input: "a long passphrase\n")
        _ = try cumulus("operators", "add", "bob", input: "another passphrase\n")
        let text = try cumulus("operators", "token", "alice", "--name", "deploy script")
        _ = try cumulus("operators", "password", "alice", input: "a third passphrase\n")
        var configuration = CloudStoreConfiguration(dataDirectory: data)
        if let database { configuration.database = .postgres(url: database.url) }
        let id = try CloudStore(configuration: configuration).managementToken(text: text).id
        _ = try cumulus("operators", "revoke-token", id)
        _ = try cumulus("operators", "remove", "bob")
        _ = try cumulus("secret", "rotate")
        // A refused change is not audited.
        #expect(try CumulusBinary.run(["operators", "remove", "nobody", "--data-dir", data], environment: environment).status != 0)

        let trail = try CloudStore(configuration: configuration).auditEntries(AuditFilter()).reversed()
        #expect(
            trail.map { "\($0.action) \($0.target)" } == [
                "operator.add alice", "operator.add bob", "management-token.create deploy script (\(id)) of alice",
                "operator.password alice",
                "management-token.revoke \(id)", "operator.remove bob", "secret.rotate server secret",
            ])
        #expect(trail.allSatisfy { $0.actor == "local command line" && $0.operatorName == "local" && $0.container == nil })
        // The operators' passwords never reach it.
        #expect(!trail.contains { $0.target.contains("passphrase") })
    }
}
