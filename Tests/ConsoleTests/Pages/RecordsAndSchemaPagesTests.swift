import CloudKitWire
import CloudStore
import Console
import Foundation
import TestSupport
import Testing

/// The records and schema pages over a real socket: browsing without an index, the type
/// picker's default and counts, comparators by field type, record relations, the schema's jump
/// list, one save per type, index kinds by field type and deletion counted first.
@Suite struct RecordsAndSchemaPagesTests {
    fileprivate static let base = "/console/containers/iCloud.com.example.Tests/development"

    /// A signed-in operator, a schema whose first type (Folder) the zone does not hold, and
    /// records of types made just in time, without any index.
    private final class Fixture {
        let server: ConsoleTestServer
        let cookie: (String, String)
        let csrf: String

        init() throws {
            server = try ConsoleTestServer()
            try server.store.addOperator("root", password: "operator password")
            try server.store.importSchema(
                "DEFINE SCHEMA\n RECORD TYPE Folder (name STRING QUERYABLE);\n", into: server.container, .development)
            let database = try server.store.database(server.container, .development, .public, as: .operator())
            _ = try database.modify(
                ModifyRequest(operations: [
                    RecordOperation(.create, recordName: "note-0", recordType: "Note", fields: ["title": .string("first")]),
                    RecordOperation(
                        .create, recordName: "photo-0", recordType: "Photo",
                        fields: ["note": .reference(Reference(recordName: "note-0")), "taken": .timestamp(0), "n": .int64(1)]),
                    RecordOperation(.create, recordName: "photo-1", recordType: "Photo", fields: ["n": .int64(2)], parent: "note-0"),
                ]))
            let signedIn = try server.store.signInOperator("root", password: "operator password", clientAddress: nil)
            cookie = ("Cookie", "cumulus_console=\(signedIn.secret)")
            csrf = signedIn.session.csrfToken
        }

        func get(_ path: String) throws -> TestResponse { try server.get(RecordsAndSchemaPagesTests.base + path, headers: [cookie]) }

        func post(_ path: String, _ fields: [(String, String)]) throws -> TestResponse {
            try server.post(RecordsAndSchemaPagesTests.base + path, form: [("csrfToken", csrf)] + fields, headers: [cookie])
        }
    }

    @Test func aJustInTimeTypeIsBrowsedWithoutAnyIndex() throws {
        let fixture = try Fixture()
        let page = try fixture.get("/public/records?type=Photo")
        #expect(page.status == 200)
        #expect(!page.text.contains("This query needs an index"))
        #expect(page.text.contains("photo-0") && page.text.contains("photo-1"))
        #expect(page.text.contains("2 Photo records in zone _defaultZone"))
        // Paged by record name.
        let first = try fixture.get("/public/records?type=Photo&limit=1")
        #expect(first.text.contains("photo-0") && !first.text.contains(">photo-1<"))
        #expect(first.text.contains("after=photo-0"))
        let second = try fixture.get("/public/records?type=Photo&limit=1&after=photo-0&page=2")
        #expect(second.text.contains(">photo-1<") && !second.text.contains(">photo-0<"))
        // Exported the same way, without an index.
        let exported = try fixture.get("/public/records/export?type=Photo&format=csv")
        #expect(exported.status == 200)
        #expect(exported.text.contains("photo-0") && exported.text.contains("photo-1"))
        // A filter is a query: it still names the missing index, as recordName-free text.
        let filtered = try fixture.get("/public/records?type=Photo&f0.field=n&f0.op=EQUALS&f0.value=1")
        #expect(filtered.status == 400)
        #expect(filtered.text.contains("This query needs an index") && filtered.text.contains("pending change"))
    }

    /// "Add the index" on the missing-index notice adds the one the notice named, and the
    /// confirmation names that field as the notice does: a filter's field by its name, the
    /// record name as recordName, never as its stored name `___recordID`.
    @Test func addingTheMissingIndexNamesTheFieldIndexed() throws {
        let fixture = try Fixture()
        /// The notice the page after "Add the index" shows, having followed the notice's own form.
        func added(_ query: String) throws -> String {
            let page = try fixture.get("/public/records?" + query)
            let form = try #require(HTML.text(in: page.text, between: "This query needs an index", and: "</form>"))
            let answer = try fixture.server.post(
                Self.base + "/public/records/index", form: HTML.hiddenFields(in: form), headers: [fixture.cookie])
            #expect(answer.status == 303)
            let notice = try #require(answer.header("Set-Cookie")?.split(separator: ";").first.map(String.init))
            let next = try fixture.server.get(
                try #require(answer.header("Location")), headers: [("Cookie", fixture.cookie.1 + "; " + notice)])
            return try #require(HTML.text(in: next.text, between: "Added a ", and: "<"))
        }
        for (query, expected) in [
            ("type=Photo&f0.field=n&f0.op=EQUALS&f0.value=1", "QUERYABLE index on Photo.n; the query ran again."),
            // A query of a type without indexes needs the record name's first.
            ("type=Note&sort=title", "QUERYABLE index on Note.recordName; the query ran again."),
            ("type=Note&f0.field=title&f0.op=EQUALS&f0.value=first", "QUERYABLE index on Note.title; the query ran again."),
        ] {
            let notice = try added(query)
            #expect(notice == expected, "\(query): \(notice)")
        }
        let schema = try fixture.server.store.schema(fixture.server.container, .development)
        #expect(schema.recordType("Photo")?.field("n")?.indexes.contains(.queryable) == true)
        #expect(schema.recordType("Note")?.field(SystemField.recordID.rawValue)?.indexes.contains(.queryable) == true)
    }

    /// An uploaded schema is previewed first — what it adds, changes and removes, nothing
    /// imported yet — and imported by the preview's own form, with the text it previewed.
    @Test func aSchemaUploadIsPreviewedBeforeItIsImported() throws {
        let fixture = try Fixture()
        let text = "DEFINE SCHEMA\n RECORD TYPE Folder (name STRING);\n RECORD TYPE Task (due TIMESTAMP QUERYABLE);\n"
        let preview = try fixture.post("/schema/upload", [("text", text)])
        #expect(preview.status == 200)
        let card = try #require(HTML.text(in: preview.text, between: #"<div class="import-preview""#, and: "</div>"))
        #expect(card.contains("<li>add record type Task (1 field)</li>") && card.contains("<li>add index QUERYABLE on Task.due</li>"))
        #expect(card.contains("<h4>Removed</h4><ul><li>remove index QUERYABLE from Folder.name</li></ul>"))
        #expect(try fixture.server.store.schema(fixture.server.container, .development).recordType("Task") == nil)
        let fields = HTML.hiddenFields(in: card)
        #expect(fields.contains { $0 == ("apply", "yes") } && fields.contains { $0 == ("text", text) })
        let applied = try fixture.post("/schema/upload", fields.filter { $0.0 != "csrfToken" })
        #expect(applied.status == 303)
        #expect(try fixture.server.store.schema(fixture.server.container, .development).recordType("Task") != nil)
    }

    /// The record form picks a reference among the zone's records (by name, with their type) and
    /// uploads a file for an ASSET field, without script: a multipart post whose file the store
    /// keeps as the API's uploads are kept, shown on the record's page.
    @Test func theRecordFormPicksAReferenceAndUploadsAFile() throws {
        let fixture = try Fixture()
        try fixture.server.store.importSchema(
            "DEFINE SCHEMA\n RECORD TYPE Folder (name STRING QUERYABLE);\n RECORD TYPE Doc (about REFERENCE, file ASSET);\n",
            into: fixture.server.container, .development)
        let form = try fixture.get("/public/records/new?type=Doc").text
        #expect(form.contains(#"enctype="multipart/form-data""#))
        #expect(form.contains(#"name="field.about" type="text" value="" list="record-choices""#))
        let choices = try #require(HTML.text(in: form, between: #"<datalist id="record-choices">"#, and: "</datalist>"))
        #expect(choices.contains(#"<option value="note-0">Note</option>"#) && choices.contains(#"<option value="photo-1">Photo</option>"#))
        #expect(form.contains(#"<input id="field-file" name="field.file" type="file""#))

        let boundary = "----cumulus-test-boundary"
        func part(_ name: String, _ value: String) -> String {
            "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n\(value)\r\n"
        }
        let content = "hello, asset"
        let body =
            part("csrfToken", fixture.csrf) + part("recordType", "Doc") + part("recordName", "doc-1") + part("field.about", "note-0")
            + "--\(boundary)\r\nContent-Disposition: form-data; name=\"field.file\"; filename=\"hello.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\n\(content)\r\n--\(boundary)--\r\n"
        let created = try fixture.server.post(
            Self.base + "/public/records/new", body: body,
            headers: [fixture.cookie, ("Content-Type", "multipart/form-data; boundary=\(boundary)")])
        #expect(created.status == 303, "\(created.text)")
        let database = try fixture.server.store.database(fixture.server.container, .development, .public, as: .operator())
        let record = try #require(try database.lookup([RecordLookup("doc-1")]).first?.record)
        #expect(record.fields["about"]?.references.first?.recordName == "note-0")
        guard case .asset(let asset)? = record.fields["file"] else {
            Issue.record("no asset in \(record.fields)")
            return
        }
        #expect(asset.size == Int64(content.utf8.count))
        let detail = try fixture.get("/public/records/doc-1").text
        #expect(detail.contains("/assets/1/download/"), "the record page links the stored file")
        // Its edit form keeps the file unless another is chosen.
        let edit = try fixture.get("/public/records/doc-1/edit").text
        #expect(edit.contains("Holds a file; choose another to replace it"))
    }

    @Test func thePickerDefaultsToAHeldTypeAndOffersComparatorsByType() throws {
        let fixture = try Fixture()
        let page = try fixture.get("/public/records").text
        // Folder comes first in the schema but the zone holds none: Note is shown.
        #expect(page.contains(#"<option value="Note" selected>Note (1)</option>"#))
        #expect(page.contains(#"<option value="Folder">Folder (0)</option>"#))
        // Sorts read as people say them.
        let sort = try #require(HTML.text(in: page, between: #"id="q-sort""#, and: "</select>"))
        #expect(sort.contains(">created</option>") && sort.contains(">modified</option>") && !sort.contains(">___createTime"))
        // A filter on an INT64 offers no BEGINS_WITH, and no meters box.
        let photos = try fixture.get("/public/records?type=Photo&sort=n&f0.field=n&f0.op=EQUALS&f0.value=1").text
        let firstRow = try #require(HTML.text(in: photos, between: #"id="f0-op""#, and: "</select>"))
        #expect(firstRow.contains("GREATER_THAN") && !firstRow.contains("BEGINS_WITH") && !firstRow.contains("NEAR"))
        #expect(!photos.contains(#"id="f0-distance""#))
    }

    @Test func deleteSelectedWithNothingTickedKeepsTheQuery() throws {
        let fixture = try Fixture()
        let back = Self.base + "/public/records?type=Photo&limit=7"
        let answer = try fixture.post("/public/records/delete", [("back", back)])
        #expect(answer.status == 303)
        #expect(answer.header("Location") == back)
    }

    @Test func aRecordShowsItsParentReferrersAndJSON() throws {
        let fixture = try Fixture()
        let note = try fixture.get("/public/records/note-0").text
        #expect(note.contains("Referenced by"))
        #expect(note.contains(">photo-0</code></a> <span class=\"muted small\">Photo, field note"))
        #expect(note.contains(">photo-1</code></a> <span class=\"muted small\">Photo, as its parent"))
        #expect(note.contains("&quot;recordName&quot; : &quot;note-0&quot;"))
        let child = try fixture.get("/public/records/photo-1").text
        #expect(child.contains("records/note-0\"><code>note-0</code></a>"))
    }

    @Test func theSchemaPageJumpsSavesPerTypeAndOffersAllowedIndexesOnly() throws {
        let fixture = try Fixture()
        let page = try fixture.get("/schema").text
        #expect(page.contains(##"<a href="#type-Photo">Photo</a> <span class="muted small">2</span>"##))
        // One form per type; no SEARCHABLE on an INT64, nothing at all on a TIMESTAMP's SEARCHABLE.
        #expect(page.contains(#"id="type-Photo-indexes""#))
        #expect(page.contains(#"id="ix-Photo-n-QUERYABLE""#) && !page.contains(#"id="ix-Photo-n-SEARCHABLE""#))
        #expect(!page.contains(#"id="ix-Photo-taken-SEARCHABLE""#))
        #expect(page.contains(#"id="ix-Note-title-SEARCHABLE""#))

        let saved = try fixture.post(
            "/schema/types/Photo/indexes", [("field", "n"), ("index.n", "QUERYABLE"), ("index.n", "SORTABLE"), ("field", "taken")])
        #expect(saved.status == 303)
        let location = try #require(saved.header("Location"))
        #expect(location.hasSuffix("schema?saved=Photo#type-Photo"))
        let photo = try fixture.server.store.schema(fixture.server.container, .development).recordType("Photo")
        #expect(photo?.field("n")?.indexes == [.queryable, .sortable])
        // The notice is drawn in Photo's section, not at the top.
        let after = try fixture.server.get(
            location.replacingOccurrences(of: "#type-Photo", with: ""), headers: [("Cookie", fixture.cookie.1 + Self.notice(saved))]
        ).text
        let section = try #require(HTML.text(in: after, between: #"id="type-Photo""#, and: "</section>"))
        #expect(section.contains("Indexes of Photo saved."))
        #expect(after.components(separatedBy: "Indexes of Photo saved.").count == 2)
    }

    @Test func deletingAFieldCountsFirstThenDeletes() throws {
        let fixture = try Fixture()
        let confirm = try fixture.post("/schema/types/Photo/fields/n/delete", [])
        #expect(confirm.status == 200)
        #expect(confirm.text.contains("Delete field Photo.n?"))
        #expect(confirm.text.contains("2 values of Photo.n, in 2 records of the type"))
        #expect(try fixture.server.store.schema(fixture.server.container, .development).recordType("Photo")?.field("n") != nil)
        let done = try fixture.post("/schema/types/Photo/fields/n/delete", [("confirmed", "yes")])
        #expect(done.status == 303)
        #expect(try fixture.server.store.schema(fixture.server.container, .development).recordType("Photo")?.field("n") == nil)
        // Production refuses, and says so beside the type.
        let refused = try fixture.server.post(
            "/console/containers/iCloud.com.example.Tests/production/schema/types/Note/delete", form: [("csrfToken", fixture.csrf)],
            headers: [fixture.cookie])
        #expect(refused.status == 303)
        #expect(try fixture.server.store.schema(fixture.server.container, .development).recordType("Note") != nil)
    }

    /// The cookies a redirect set (its notice), to send back beside the session as a browser would.
    private static func notice(_ response: TestResponse) -> String {
        response.headers("Set-Cookie").map { "; " + String($0.split(separator: ";")[0]) }.joined()
    }
}
