import CloudStore
import Foundation
import TestSupport
import Testing

/// `cumulus seeds`, `cumulus reset --seed`, `cumulus personal-fields` and `cumulus
/// copy-to-development` on a data directory (or the run's PostgreSQL database).
@Suite struct SeedCommandsTests {
    @Test func aSeedIsSavedAndRestoredAndACopyMasksPersonalFields() throws {
        let fixture = try TemporaryStore()
        let store = fixture.store
        let c = fixture.container.rawValue
        try fixture.importSchema(
            """
            DEFINE SCHEMA
                RECORD TYPE Person ("___recordID" REFERENCE QUERYABLE, name STRING QUERYABLE, email STRING, team STRING);
            """)
        try store.deploySchema(fixture.container, deployedBy: "test")
        try fixture.database(.production).create("Person", "p1", ["name": .string("Ada Lovelace"), "email": .string("ada@analytical.org")])
        try fixture.database().create("Person", "d1", ["name": .string("Dev Person"), "team": .string("seeded")])
        let environment = fixture.postgresDatabase.map { ["CUMULUS_DATABASE_URL": $0.url] } ?? [:]
        @discardableResult func run(_ arguments: [String]) throws -> String {
            let result = try CumulusBinary.run(arguments + ["--data-dir", fixture.directory], environment: environment)
            #expect(result.status == 0, "\(arguments): \(result.error)")
            return result.output
        }

        #expect(
            try run(["seeds", "save", "--container", c, "--type", "Person", "people"]).contains("Saved seed people: 1 records of Person"))
        #expect(try run(["seeds", "list", "--container", c]).contains(#""name" : "people""#))
        #expect(
            try run(["personal-fields", "set", "--container", c, "--type", "Person", "--field", "name"]).contains(
                "Person.name is personal; personal fields: Person.name."))
        try run(["personal-fields", "set", "--container", c, "--type", "Person", "--field", "email"])
        let copied = try run(["copy-to-development", "--container", c, "--type", "Person"])
        #expect(copied.contains("Copied 1 records to development (0 unchanged), 2 personal values masked in Person.email, Person.name."))
        let masked = try #require(try fixture.database().lookup([RecordLookup("p1")]).first?.record)
        #expect(masked.fields["name"] != .string("Ada Lovelace") && masked.fields["email"] != .string("ada@analytical.org"))
        #expect(masked.fields["name"] != nil && masked.fields["email"] != nil)

        let reset = try run(["reset", "--container", c, "--seed", "people"])
        #expect(reset.contains("2 records and 0 zones deleted") && reset.contains("seed people restored: 1 records."))
        let after = try fixture.database().lookup([RecordLookup("d1"), RecordLookup("p1")]).map { $0.record?.fields["team"] }
        #expect(after == [.string("seeded"), nil], "the seed's record is back, the copied one gone")

        try run(["seeds", "delete", "--container", c, "people"])
        #expect(try store.seeds(fixture.container).isEmpty)
        let refused = try CumulusBinary.run(
            ["reset", "--container", c, "--seed", "people", "--data-dir", fixture.directory], environment: environment)
        #expect(refused.status != 0 && refused.error.contains("There is no seed named 'people'"))
    }
}
