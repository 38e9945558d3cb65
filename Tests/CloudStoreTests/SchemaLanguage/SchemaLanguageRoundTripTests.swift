import CloudStore
import Testing

@Suite("Schema language: round trips")
struct SchemaLanguageRoundTripTests {
    static let samples: [String] = [
        SchemaSamples.apple, SchemaSamples.appleExported, SchemaSamples.everything, SchemaSamples.cktoolShaped,
    ]

    @Test(
        "parse → export → parse gives the same schema, and export → parse → export the same text",
        arguments: samples)
    func roundTrip(_ text: String) throws {
        let schema = try SchemaLanguage.parse(text)
        let exported = SchemaLanguage.export(schema)
        let reparsed = try SchemaLanguage.parse(exported)
        #expect(reparsed == schema)
        #expect(SchemaLanguage.export(reparsed) == exported)
    }

    @Test("A schema built in code survives export and parse unchanged")
    func builtSchema() throws {
        let schema = Schema(
            roles: ["Moderator", "read only"],
            recordTypes: [
                RecordTypeDefinition(
                    name: "Post",
                    fields: [
                        FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
                        FieldDefinition(name: "___etag", type: .string, indexes: [.queryable, .searchable, .sortable]),
                        FieldDefinition(name: "title", type: .string, indexes: [.queryable, .searchable, .sortable]),
                        FieldDefinition(name: "attachments", type: .list(.asset)),
                        FieldDefinition(name: "where", type: .location, indexes: [.queryable, .sortable]),
                        FieldDefinition(name: "note", type: .string, isEncrypted: true),
                        FieldDefinition(name: "score", type: .int64, indexes: [.sortable], numberPreference: .int64),
                        FieldDefinition(
                            name: "weights", type: .list(.double), indexes: [.queryable], numberPreference: .double),
                        FieldDefinition(name: "anything", type: .double, numberPreference: .unspecified),
                        FieldDefinition(name: "grant", type: .bytes),
                    ],
                    grants: [
                        Grant([.read, .create, .write], to: "_icloud"),
                        Grant([.write], to: "Moderator"),
                        Grant([.read], to: "read only"),
                    ]
                ),
                RecordTypeDefinition(name: "cloudkit.share"),
            ]
        )
        let exported = SchemaLanguage.export(schema)
        #expect(try SchemaLanguage.parse(exported) == schema)
        #expect(SchemaLanguage.export(try SchemaLanguage.parse(exported)) == exported)
    }
}
