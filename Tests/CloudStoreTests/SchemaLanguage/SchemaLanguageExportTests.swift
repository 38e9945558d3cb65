import CloudStore
import Testing

@Suite("Schema language: export layout")
struct SchemaLanguageExportTests {
    @Test("Apple's sample is written in cktool's layout")
    func appleSample() throws {
        let schema = try SchemaLanguage.parse(SchemaSamples.apple)
        #expect(SchemaLanguage.export(schema) == SchemaSamples.appleExported)
    }

    @Test("A text in cktool's export layout is written back byte for byte")
    func cktoolShaped() throws {
        let schema = try SchemaLanguage.parse(SchemaSamples.cktoolShaped)
        #expect(SchemaLanguage.export(schema) == SchemaSamples.cktoolShaped)
    }

    @Test("An empty schema is the header alone; roles alone form one block")
    func minimal() {
        #expect(SchemaLanguage.export(Schema()) == "DEFINE SCHEMA\n")
        #expect(
            SchemaLanguage.export(Schema(roles: ["Editor", "test role"])) == """
                DEFINE SCHEMA

                    CREATE ROLE Editor;
                    CREATE ROLE "test role";

                """)
    }

    @Test("Types align one space past the longest name, long user names included")
    func alignment() {
        let schema = Schema(recordTypes: [
            RecordTypeDefinition(
                name: "Instrument",
                fields: [
                    FieldDefinition(
                        name: "cryptocompareSymbol", type: .string, indexes: [.sortable, .searchable, .queryable]),
                    FieldDefinition(name: "kind", type: .int64),
                ])
        ])
        #expect(
            SchemaLanguage.export(schema) == """
                DEFINE SCHEMA

                    RECORD TYPE Instrument (
                        "___createTime"     TIMESTAMP,
                        "___createdBy"      REFERENCE,
                        "___etag"           STRING,
                        "___modTime"        TIMESTAMP,
                        "___modifiedBy"     REFERENCE,
                        "___recordID"       REFERENCE,
                        cryptocompareSymbol STRING QUERYABLE SEARCHABLE SORTABLE,
                        kind                INT64
                    );

                """)
    }

    @Test("Every type is spelled as the language writes it")
    func typeSpellings() {
        let fields: [(FieldDefinition, String)] = [
            (FieldDefinition(name: "a", type: .asset), "ASSET"),
            (FieldDefinition(name: "a", type: .bytes), "BYTES"),
            (FieldDefinition(name: "a", type: .double), "DOUBLE"),
            (FieldDefinition(name: "a", type: .int64), "INT64"),
            (FieldDefinition(name: "a", type: .location), "LOCATION"),
            (FieldDefinition(name: "a", type: .reference), "REFERENCE"),
            (FieldDefinition(name: "a", type: .string), "STRING"),
            (FieldDefinition(name: "a", type: .timestamp), "TIMESTAMP"),
            (FieldDefinition(name: "a", type: .bytes, isEncrypted: true), "ENCRYPTED BYTES"),
            (FieldDefinition(name: "a", type: .location, isEncrypted: true), "ENCRYPTED LOCATION"),
            (FieldDefinition(name: "a", type: .double, numberPreference: .unspecified), "NUMBER"),
            (FieldDefinition(name: "a", type: .int64, numberPreference: .int64), "NUMBER PREFERRED AS INT64"),
            (FieldDefinition(name: "a", type: .double, numberPreference: .double), "NUMBER PREFERRED AS DOUBLE"),
            (FieldDefinition(name: "a", type: .list(.asset)), "LIST<ASSET>"),
            (FieldDefinition(name: "a", type: .list(.string), isEncrypted: true), "LIST<ENCRYPTED STRING>"),
            (
                FieldDefinition(name: "a", type: .list(.int64), numberPreference: .int64),
                "LIST<NUMBER PREFERRED AS INT64>"
            ),
        ]
        for (field, spelling) in fields {
            let text = SchemaLanguage.export(Schema(recordTypes: [RecordTypeDefinition(name: "T", fields: [field])]))
            #expect(text.contains("\n        a               \(spelling)\n"), "\(spelling) in:\n\(text)")
        }
    }

    @Test("Names are quoted exactly when a bare word would not read back as the same name")
    func quoting() throws {
        let cases: [(String, String)] = [
            ("title", "title"),
            ("Title_2", "Title_2"),
            ("grant", #""grant""#),
            ("Queryable", #""Queryable""#),
            ("preferred", #""preferred""#),
            ("type", #""type""#),
            ("string", #""string""#),
            ("List", #""List""#),
            ("_private", #""_private""#),
            ("2fa", #""2fa""#),
            ("cloudkit.title", #""cloudkit.title""#),
            ("with space", #""with space""#),
            ("café", #""café""#),
            (#"say "hi""#, #""say \"hi\"""#),
            (#"back\slash"#, #""back\\slash""#),
        ]
        for (name, written) in cases {
            let schema = Schema(
                roles: [name],
                recordTypes: [
                    RecordTypeDefinition(
                        name: name,
                        fields: [FieldDefinition(name: name, type: .string)],
                        grants: [Grant([.read], to: name)]
                    )
                ])
            let text = SchemaLanguage.export(schema)
            #expect(text.contains("    CREATE ROLE \(written);\n"), "\(name) in:\n\(text)")
            #expect(text.contains("    RECORD TYPE \(written) (\n"), "\(name) in:\n\(text)")
            #expect(text.contains("\n        \(written) "), "\(name) in:\n\(text)")
            #expect(text.contains("        GRANT READ TO \(written)\n"), "\(name) in:\n\(text)")
            #expect(try SchemaLanguage.parse(text) == schema, "\(name)")
        }
    }

    @Test("System fields come first and quoted; grants last, in their own order, with no trailing comma")
    func order() {
        let schema = Schema(recordTypes: [
            RecordTypeDefinition(
                name: "Note",
                fields: [
                    FieldDefinition(name: "zeta", type: .string),
                    FieldDefinition(name: "___modTime", type: .timestamp, indexes: [.sortable, .queryable]),
                    FieldDefinition(name: "alpha", type: .string),
                ],
                grants: [Grant([.write, .read], to: "_world"), Grant([.create], to: "_creator")]
            )
        ])
        let lines = SchemaLanguage.export(schema).split(separator: "\n").map(String.init)
        #expect(
            lines == [
                "DEFINE SCHEMA",
                "    RECORD TYPE Note (",
                #"        "___createTime" TIMESTAMP,"#,
                #"        "___createdBy"  REFERENCE,"#,
                #"        "___etag"       STRING,"#,
                #"        "___modTime"    TIMESTAMP QUERYABLE SORTABLE,"#,
                #"        "___modifiedBy" REFERENCE,"#,
                #"        "___recordID"   REFERENCE,"#,
                "        zeta            STRING,",
                "        alpha           STRING,",
                #"        GRANT WRITE, READ TO "_world","#,
                #"        GRANT CREATE TO "_creator""#,
                "    );",
            ])
    }
}
