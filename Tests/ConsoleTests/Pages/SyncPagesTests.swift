import CloudStore
import Testing

@testable import Console

/// The Sync page as an operator debugs a missed change with it: the log newest first, paged and
/// searched, who made each change and through which credential, a held token decoded with what
/// it has not received marked, the next page as a chosen reader, the shared database, and
/// production's metadata only.
@Suite struct SyncPagesTests {
    /// A console whose public database holds 120 notes alice saved through the API token `web`;
    /// the operator `root` is signed in.
    struct Fixture {
        let server: ConsoleTestServer
        let cookie: (String, String)
        let alice: String
        let base: String

        init() throws {
            server = try ConsoleTestServer()
            let (store, c) = (server.store, server.container)
            cookie = try server.signedInOperator().cookie
            try store.importSchema(
                """
                DEFINE SCHEMA
                    RECORD TYPE Note ("___recordID" REFERENCE QUERYABLE, title STRING, GRANT WRITE TO "_creator", GRANT CREATE TO "_icloud", GRANT READ TO "_world");
                    RECORD TYPE Diary ("___recordID" REFERENCE QUERYABLE, title STRING, GRANT CREATE, READ, WRITE TO "_creator");
                """, into: c, .development)
            alice = try store.addUser(c, name: "alice", password: "a long passphrase").userRecordName
            _ = try store.addUser(c, name: "bob", password: "a long passphrase")
            var database = try store.database(c, .development, .public, as: .user(alice))
            database.credential = .apiToken("web")
            for index in 1...120 { try database.create("Note", "note-\(index)", ["title": .string("n")]) }
            base = "/console/containers/\(c.rawValue)/development/public/sync"
        }

        func get(_ path: String) throws -> (Int, String) {
            let response = try server.get(path, headers: [cookie])
            return (response.status, response.text)
        }

        /// The record names of the change log's rows, top to bottom.
        static func rows(_ page: String) -> [String] {
            let log = page.components(separatedBy: "<caption class=\"visually-hidden\">The zone's change log")
            guard log.count > 1, let table = log[1].components(separatedBy: "</table>").first else { return [] }
            return table.components(separatedBy: "<code class=\"wrap\">").dropFirst().compactMap { $0.components(separatedBy: "<").first }
        }
    }

    @Test func theLogIsNewestFirstPagedAndSearchedByRecordName() throws {
        let fixture = try Fixture()
        let (status, newest) = try fixture.get(fixture.base)
        #expect(status == 200)
        let rows = Fixture.rows(newest)
        #expect(rows.count == 50 && rows.first == "note-120" && rows.last == "note-71")
        #expect(newest.contains("Changes 71–120 of 120"))
        #expect(newest.contains("sync?before=71\" rel=\"next\">Older changes"))
        #expect(!newest.contains("Newer changes"))
        #expect(newest.contains("alice <span class=\"muted small\">via API token web</span>"), "changed by, by name, and through what")
        #expect(!newest.contains(fixture.alice), "the user is named, not their record name")
        #expect(newest.contains("/records/note-120"), "a record name links to the record")

        let (_, older) = try fixture.get(fixture.base + "?before=71")
        #expect(Fixture.rows(older).first == "note-70" && Fixture.rows(older).last == "note-21")
        #expect(older.contains("Newer changes") && older.contains("Older changes"))

        let (_, searched) = try fixture.get(fixture.base + "?recordName=note-7")
        #expect(
            Fixture.rows(searched) == [
                "note-79", "note-78", "note-77", "note-76", "note-75", "note-74", "note-73", "note-72", "note-71", "note-70", "note-7",
            ])
        let (badStatus, bad) = try fixture.get(fixture.base + "?before=seven")
        #expect(badStatus == 400 && bad.contains("is not a change number"))
    }

    @Test func aHeldTokenIsDecodedAndTheNextPageShownAsAChosenReader() throws {
        let fixture = try Fixture()
        let (store, c) = (fixture.server.store, fixture.server.container)
        let alice = try store.database(c, .development, .public, as: .user(fixture.alice))
        let token = try alice.zoneChanges(syncToken: nil, resultsLimit: 200).syncToken
        try alice.create("Diary", "diary-1", ["title": .string("alice's alone")])
        try alice.create("Note", "note-121", ["title": .string("everyone's")])
        let encoded = URLEncoding.component(token)

        let (_, asBob) = try fixture.get(fixture.base + "?syncToken=\(encoded)&reader=bob")
        #expect(asBob.contains("received up to change 120"))
        #expect(asBob.contains("As bob: 1 change."))
        let next = asBob.components(separatedBy: "id=\"next-records\"").last ?? ""
        #expect(next.contains("note-121") && !next.contains("diary-1"), "bob may not read alice's diary")
        #expect(asBob.components(separatedBy: "not yet received").count - 1 >= 2, "both newer changes are marked in the log")

        let (_, asAlice) = try fixture.get(fixture.base + "?syncToken=\(encoded)&reader=alice")
        #expect(asAlice.contains("As alice: 2 changes."))
        #expect((asAlice.components(separatedBy: "id=\"next-records\"").last ?? "").contains("diary-1"))

        let (_, asWorld) = try fixture.get(fixture.base + "?syncToken=\(encoded)&reader=_world")
        #expect(asWorld.contains("As the world (no signed-in user): 1 change."))

        let (_, unknown) = try fixture.get(fixture.base + "?syncToken=\(encoded)&reader=nobody")
        #expect(unknown.contains("role=\"alert\""))
        let (_, damaged) = try fixture.get(fixture.base + "?syncToken=damaged")
        #expect(damaged.contains("BAD_REQUEST"))
    }

    @Test func inProductionAUsersDatabaseShowsMetadataOnly() throws {
        let fixture = try Fixture()
        let (store, c) = (fixture.server.store, fixture.server.container)
        _ = try store.deploySchema(c, deployedBy: "test")
        try store.database(c, .production, .private, as: .user(fixture.alice)).create("Note", "2026-11-28 therapy session notes")
        let path = "/console/containers/\(c.rawValue)/production/private/sync?user=alice"
        let (status, page) = try fixture.get(path)
        #expect(status == 200)
        #expect(page.contains("id=\"sync-metadata-only\""))
        #expect(page.contains(">hidden<") && page.contains("created"))
        #expect(!page.contains("therapy"))
        #expect(!page.contains("id=\"sync-record\""), "no search by name")
    }

    @Test func theWrongCallerIsRefused() throws {
        let fixture = try Fixture()
        let response = try fixture.server.get(fixture.base)
        #expect(response.status == 303 || response.status == 401, "no console session: to the sign-in page")
        #expect(!response.text.contains("note-120"))
    }
}
