import CloudKitWire
import CloudStore
import Console
import Foundation
import TestSupport
import Testing

/// Seeds, personal fields and masked copies through the management API, as a script calls them.
@Suite struct ManagementSeedsTests {
    static let base = "/admin/v1/containers/iCloud.com.example.Tests"

    /// A server whose development and production have Person, production with two people.
    static func server() throws -> ConsoleTestServer {
        let server = try ConsoleTestServer()
        try server.store.addOperator("root", password: "operator password")
        try server.store.addOperator("vera", password: "operator password", role: .viewer)
        try server.store.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Person ("___recordID" REFERENCE QUERYABLE, name STRING QUERYABLE, email STRING QUERYABLE, team STRING);
            """, into: server.container, .development)
        try server.store.deploySchema(server.container, deployedBy: "test")
        let production = try server.store.database(server.container, .production, .public, as: .operator())
        for (name, person) in [("p1", ("Ada Lovelace", "ada@analytical.org")), ("p2", ("Grace Hopper", "grace@navy.mil"))] {
            _ = try production.modify(
                ModifyRequest(operations: [
                    RecordOperation(
                        .create, recordName: name, recordType: "Person",
                        fields: ["name": .string(person.0), "email": .string(person.1), "team": .string("core")])
                ]))
        }
        return server
    }

    static func call(_ server: ConsoleTestServer, _ token: String, _ method: String, _ path: String, _ body: String = "") throws -> (
        Int, JSONValue
    ) {
        let response = try HTTPTestClient.send(
            port: server.port, method: method, target: base + path, headers: [("Authorization", "Bearer " + token)],
            body: Array(body.utf8))
        return (response.status, try response.json())
    }

    @Test func aScriptMasksACopySavesASeedAndResetsToIt() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "root", name: "t").text
        func call(_ method: String, _ path: String, _ body: String = "") throws -> (Int, JSONValue) {
            try Self.call(server, token, method, path, body)
        }
        #expect(try call("PUT", "/personal-fields/Person/name", #"{"personal":true}"#).1 == ["personalFields": ["Person.name"]])
        #expect(
            try call("PUT", "/personal-fields/Person/email", #"{"personal":true}"#).1 == [
                "personalFields": ["Person.email", "Person.name"]
            ])
        #expect(try call("GET", "/personal-fields").1["personalFields"]?.arrayValue?.count == 2)

        let (copyStatus, copy) = try call("POST", "/copy-to-development", #"{"recordTypes":["Person"]}"#)
        #expect(copyStatus == 200)
        #expect(copy["copied"] == 2 && copy["maskedValues"] == 4 && copy["maskedFields"] == ["Person.email", "Person.name"])
        let development = try server.store.database(server.container, .development, .public, as: .operator())
        let copied = try development.lookup([RecordLookup("p1"), RecordLookup("p2")]).compactMap(\.record)
        #expect(copied.count == 2)
        let productionValues: Set<FieldValue> = Set(
            ["Ada Lovelace", "Grace Hopper", "ada@analytical.org", "grace@navy.mil"].map(FieldValue.string))
        for person in copied {
            #expect(person.fields["name"] != nil && !productionValues.contains(person.fields["name"]!))
            #expect(person.fields["email"] != nil && !productionValues.contains(person.fields["email"]!))
            #expect(person.fields["team"] == .string("core"))
        }

        let query = #"{"recordType":"Person","filterBy":[{"fieldName":"name","comparator":"EQUALS","fieldValue":{"value":"nobody"}}]}"#
        #expect(try call("POST", "/seeds", #"{"name":"none","query":\#(query)}"#).1["records"] == 0)
        let (saveStatus, seed) = try call("POST", "/seeds", #"{"name":"people","recordTypes":["Person"]}"#)
        #expect(saveStatus == 201 && seed["records"] == 2 && seed["selection"] == "types Person" && seed["database"] == "public")
        #expect(try call("GET", "/seeds").1["seeds"]?.arrayValue?.compactMap { $0["name"]?.stringValue } == ["none", "people"])

        let (resetStatus, reset) = try call("POST", "/reset", #"{"confirm":"iCloud.com.example.Tests","seed":"people"}"#)
        #expect(resetStatus == 200 && reset["seed"] == "people" && reset["restored"] == 2 && reset["deleted"]?["records"] == 2)
        #expect(try development.lookup([RecordLookup("p1")]).first?.record?.fields["name"] == copied.first?.fields["name"])
        #expect(try call("POST", "/reset", #"{"confirm":"iCloud.com.example.Tests","seed":"missing"}"#).0 == 404)
        #expect(try call("DELETE", "/seeds/none").1 == ["deleted": "none"])
        #expect(try call("DELETE", "/seeds/none").0 == 404)
        let actions = try server.store.auditEntries(AuditFilter(container: server.container.rawValue, limit: 20)).map(\.action)
        #expect(
            actions.prefix(7) == [
                "seed.delete", "environment.reset", "seed.save", "seed.save", "data.copy-to-development", "schema.field.personal",
                "schema.field.personal",
            ])
    }

    @Test func aViewerIsRefusedEveryChangeAndReadsNoProductionCopy() throws {
        let server = try Self.server()
        let token = try server.store.createManagementToken(for: "vera", name: "t").text
        let before = try server.store.auditEntries(AuditFilter(limit: 100)).count
        for (method, path, body) in [
            ("POST", "/copy-to-development", #"{"recordTypes":["Person"]}"#),
            ("POST", "/seeds", #"{"name":"x","recordTypes":["Person"]}"#),
            ("PUT", "/personal-fields/Person/name", #"{"personal":true}"#),
            ("POST", "/reset", #"{"confirm":"iCloud.com.example.Tests","seed":"x"}"#),
        ] {
            let (status, answer) = try Self.call(server, token, method, path, body)
            #expect(status == 403 && answer["serverErrorCode"] == "ACCESS_DENIED", "\(method) \(path)")
        }
        #expect(try server.store.developmentContents(server.container).records == 0)
        #expect(try server.store.auditEntries(AuditFilter(limit: 100)).count == before)
        // Seeds may hold private databases' records: a viewer, who reads only the public one, does not list them.
        #expect(try Self.call(server, token, "GET", "/seeds").0 == 403)
        #expect(try Self.call(server, token, "GET", "/personal-fields").0 == 200, "a viewer reads the schema's marks")
    }
}
