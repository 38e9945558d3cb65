import CloudStore
import Foundation
import TestSupport
import Testing

/// The Reset page's seeds and masked copy, and the schema page's personal toggle, over a real
/// socket.
@Suite struct SeedPagesTests {
    @Test func aSeedIsSavedTheResetRestoresItAndACopyIsMaskedFromThePages() throws {
        let server = try ConsoleTestServer()
        let (cookie, csrf) = try server.signedInOperator()
        try server.store.importSchema(
            "DEFINE SCHEMA\n RECORD TYPE Person (\"___recordID\" REFERENCE QUERYABLE, name STRING QUERYABLE, team STRING);\n",
            into: server.container, .development)
        try server.store.deploySchema(server.container, deployedBy: "test")
        let c = server.container
        _ = try server.store.database(c, .production, .public, as: .operator()).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "p1", recordType: "Person", fields: ["name": .string("Ada Lovelace")])
            ]))
        _ = try server.store.database(c, .development, .public, as: .operator()).modify(
            ModifyRequest(operations: [
                RecordOperation(.create, recordName: "d1", recordType: "Person", fields: ["team": .string("seeded")])
            ]))
        let base = "/console/containers/\(c)/development"

        // The schema page marks a field personal, and says so.
        let schema = try server.get(base + "/schema", headers: [cookie]).text
        #expect(schema.contains("action=\"\(base)/schema/types/Person/fields/name/personal\"") && schema.contains("Mark personal"))
        let marked = try server.post(
            base + "/schema/types/Person/fields/name/personal", form: [("csrfToken", csrf), ("personal", "yes")], headers: [cookie])
        #expect(marked.status == 303)
        #expect(try server.store.personalFields(c).contains("name", of: "Person"))
        #expect(try server.get(base + "/schema", headers: [cookie]).text.contains("<span class=\"badge\">personal</span>"))

        let saved = try server.post(
            base + "/reset/seeds", form: [("csrfToken", csrf), ("name", "team"), ("type", "Person")], headers: [cookie])
        #expect(saved.status == 303)
        let page = try server.get(base + "/reset", headers: [cookie]).text
        #expect(page.contains("<code>team</code>") && page.contains("<option value=\"team\">Restore seed team (1 record)</option>"))
        #expect(page.contains("Person <span class=\"muted small\">(personal: name)</span>"))

        let copied = try server.post(base + "/reset/copy", form: [("csrfToken", csrf), ("type", "Person")], headers: [cookie])
        #expect(copied.status == 303)
        let development = try server.store.database(c, .development, .public, as: .operator())
        let masked = try #require(try development.lookup([RecordLookup("p1")]).first?.record)
        #expect(masked.fields["name"] != nil && masked.fields["name"] != .string("Ada Lovelace"))

        let reset = try server.post(
            base + "/reset", form: [("csrfToken", csrf), ("confirm", c.rawValue), ("seed", "team")], headers: [cookie])
        #expect(reset.status == 303)
        #expect(
            try development.lookup([RecordLookup("d1"), RecordLookup("p1")]).map { $0.record?.fields["team"] } == [.string("seeded"), nil])

        let confirm = try server.post(base + "/reset/seeds/team/delete", form: [("csrfToken", csrf)], headers: [cookie])
        #expect(confirm.status == 200 && confirm.text.contains("Delete this seed?"))
        #expect(try server.store.seeds(c).count == 1, "nothing deleted before the confirmation")
        let deleted = try server.post(
            base + "/reset/seeds/team/delete", form: [("csrfToken", csrf), ("confirmed", "yes")], headers: [cookie])
        #expect(deleted.status == 303)
        #expect(try server.store.seeds(c).isEmpty)
        let audit = try server.store.auditEntries(AuditFilter(limit: 10)).map(\.action)
        #expect(
            audit.prefix(5) == ["seed.delete", "environment.reset", "data.copy-to-development", "seed.save", "schema.field.personal"])
    }
}
