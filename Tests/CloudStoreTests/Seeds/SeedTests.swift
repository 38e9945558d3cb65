import TestSupport
import Testing

@testable import CloudStore

/// Seeds: records of development kept in the catalog, which a reset restores; on the backend of
/// the run.
@Suite struct SeedTests {
    static let schema = """
        DEFINE SCHEMA
            RECORD TYPE Note (
                "___recordID" REFERENCE QUERYABLE,
                title STRING QUERYABLE SORTABLE,
                file ASSET,
                author REFERENCE,
                GRANT READ TO "_world"
            );
            RECORD TYPE Person (
                "___recordID" REFERENCE QUERYABLE,
                name STRING QUERYABLE,
                GRANT READ TO "_world"
            );
        """

    @Test func aResetToASeedBringsBackItsRecordsAssetsAndTypesWithNewTokens() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        let database = try store.database()
        try database.create("Person", "p1", ["name": .string("Ada")])
        try database.create("Note", "n1", ["title": .string("first"), "author": .reference(Reference(recordName: "p1"))])
        let content = Array("the seed's asset".utf8)
        _ = try AssetUploadTests.save(content, as: "n2", in: store)
        let seed = try store.store.saveSeed(named: "demo", store.container, .types(["Note", "Person"]), by: .local)
        #expect(seed.records == 3 && seed.blobs == 1 && seed.blobBytes > 0)
        #expect(seed.recordTypes == ["Note", "Person"] && seed.selection == "types Note, Person")

        // Changed after the seed: gone after the reset.
        try database.create("Note", "later", ["title": .string("after the seed")])
        let tokenBefore = try database.zones().first?.syncToken
        // Nothing deployed: the seed brings its types back with it.
        let reset = try store.store.resetDevelopment(store.container, toSeed: "demo", by: .local)
        #expect(reset.deleted.records == 4 && reset.restored == 3 && reset.seed?.name == "demo")

        let after = try store.database()
        let names = try after.lookup(["n1", "n2", "p1", "later"].map { RecordLookup($0) }).map { $0.record?.recordName ?? "missing" }
        #expect(names == ["n1", "n2", "p1", "missing"])
        let n1 = try #require(try after.lookup([RecordLookup("n1")]).first?.record)
        #expect(n1.fields["title"] == .string("first") && n1.fields["author"] == .reference(Reference(recordName: "p1")))
        #expect(try AssetUploadTests.download("n2", in: store).bytes == content, "the blob came back with its record")
        #expect(try after.zones().first?.syncToken != tokenBefore)
        #expect(try store.store.schema(store.container, .development).recordType("Person")?.field("name") != nil)

        // The seed is still there, and a second reset to it gives the same records.
        #expect(try store.store.seeds(store.container).map(\.name) == ["demo"])
        #expect(try store.store.resetDevelopment(store.container, toSeed: "demo", by: .local).restored == 3)
        #expect(try AssetUploadTests.download("n2", in: store).bytes == content)
        let audit = try store.store.auditEntries(AuditFilter(container: store.container.rawValue, limit: 10)).map(\.action)
        #expect(audit.filter { $0 == "environment.reset" }.count == 2 && audit.contains("seed.save"))
    }

    @Test func aSeedOfAQueryKeepsOnlyWhatItMatches() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        for (name, title) in [("a", "keep"), ("b", "drop"), ("c", "keep")] {
            try store.database().create("Note", name, ["title": .string(title)])
        }
        let query = Query(recordType: "Note", filters: [QueryFilter(.field("title"), .equals, .string("keep"))])
        let seed = try store.store.saveSeed(named: "kept", store.container, .query(query), by: .local)
        #expect(seed.records == 2 && seed.selection == "query Note (1 filter)")
        try store.store.resetDevelopment(store.container, toSeed: "kept", by: .local)
        let titles = try store.database().lookup(["a", "b", "c"].map { RecordLookup($0) }).map { $0.record?.fields["title"] }
        #expect(titles == [.string("keep"), nil, .string("keep")])
    }

    @Test func seedsAreListedDeletedAndRefusedToAViewer() throws {
        let store = try TemporaryStore()
        try store.importSchema(Self.schema)
        try store.database().create("Person", "p1", ["name": .string("Ada")])
        try store.store.addOperator("vera", password: "operator password", role: .viewer, by: .local)
        let vera = OperatorIdentity.session(operatorName: "vera", sessionID: "s")
        #expect(throws: CloudStoreError.accessDenied("A viewer changes nothing")) {
            try store.store.saveSeed(named: "x", store.container, .types(["Person"]), by: vera)
        }
        #expect(throws: CloudStoreError.badRequest("A seed's name is 1 to 64 letters, digits, '.', '-' or '_'")) {
            try store.store.saveSeed(named: "no spaces", store.container, .types(["Person"]), by: .local)
        }
        #expect(throws: CloudStoreError.notFound("The schema has no record type 'Missing'")) {
            try store.store.saveSeed(named: "x", store.container, .types(["Missing"]), by: .local)
        }
        try store.store.saveSeed(named: "people", store.container, .types(["Person"]), by: .local)
        #expect(throws: CloudStoreError.accessDenied("A viewer changes nothing")) {
            try store.store.resetDevelopment(store.container, toSeed: "people", by: vera)
        }
        #expect(throws: CloudStoreError.accessDenied("A viewer changes nothing")) {
            try store.store.deleteSeed(named: "people", store.container, by: vera)
        }
        try store.store.deleteSeed(named: "people", store.container, by: .local)
        #expect(try store.store.seeds(store.container).isEmpty)
        #expect(throws: CloudStoreError.notFound("There is no seed named 'people' in \(store.container)")) {
            try store.store.resetDevelopment(store.container, toSeed: "people", by: .local)
        }
        #expect(try store.store.developmentContents(store.container).records == 1, "a refused reset changes nothing")
    }
}
