import CloudStore
import Testing

@Suite("Schema language: parsing")
struct SchemaLanguageParseTests {
    @Test("Apple's sample schema parses to the schema it describes")
    func appleSample() throws {
        let schema = try SchemaLanguage.parse(SchemaSamples.apple)

        #expect(schema.roles == ["DeptManager"])
        #expect(schema.recordTypes.map(\.name) == ["Department", "Employee"])

        let department = try #require(schema.recordType("Department"))
        let userFieldNames = ["name", "address", "phone", "employees"]
        #expect(department.fields.map(\.name) == SystemField.allCases.map(\.rawValue) + userFieldNames)
        #expect(department.field(.createTime).indexes == [.queryable, .sortable])
        #expect(department.field(.recordID).indexes == [.queryable])
        // System fields the text leaves out are there, without indexes.
        #expect(department.field(.etag) == SystemField.etag.definition)
        #expect(department.field(.modifiedBy) == SystemField.modifiedBy.definition)
        #expect(department.field("name") == FieldDefinition(name: "name", type: .string))
        #expect(department.field("phone") == FieldDefinition(name: "phone", type: .list(.string)))
        #expect(department.field("employees") == FieldDefinition(name: "employees", type: .list(.reference)))
        #expect(
            department.grants == [
                Grant([.write], to: "_creator"),
                Grant([.create], to: "_icloud"),
                Grant([.read], to: "_world"),
                Grant([.write, .create, .read], to: "DeptManager"),
            ])

        let employee = try #require(schema.recordType("Employee"))
        #expect(
            employee.userFields == [
                FieldDefinition(name: "name", type: .string),
                FieldDefinition(name: "address", type: .string),
                FieldDefinition(name: "hiredate", type: .timestamp),
                FieldDefinition(name: "salary", type: .int64),
            ])
        #expect(employee.grants == Grant.defaults)

        let expected = Schema(
            roles: ["DeptManager"],
            recordTypes: [
                RecordTypeDefinition(
                    name: "Department",
                    fields: [
                        FieldDefinition(name: "___createTime", type: .timestamp, indexes: [.queryable, .sortable]),
                        FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
                        FieldDefinition(name: "name", type: .string),
                        FieldDefinition(name: "address", type: .string),
                        FieldDefinition(name: "phone", type: .list(.string)),
                        FieldDefinition(name: "employees", type: .list(.reference)),
                    ],
                    grants: Grant.defaults + [Grant([.write, .create, .read], to: "DeptManager")]
                ),
                RecordTypeDefinition(
                    name: "Employee",
                    fields: [
                        FieldDefinition(name: "___createTime", type: .timestamp, indexes: [.queryable, .sortable]),
                        FieldDefinition(name: "___recordID", type: .reference, indexes: [.queryable]),
                        FieldDefinition(name: "name", type: .string),
                        FieldDefinition(name: "address", type: .string),
                        FieldDefinition(name: "hiredate", type: .timestamp),
                        FieldDefinition(name: "salary", type: .int64),
                    ],
                    grants: Grant.defaults
                ),
            ]
        )
        #expect(schema == expected)
    }

    @Test("Every type, option, quoted name and grant form is read into the model")
    func everything() throws {
        let schema = try SchemaLanguage.parse(SchemaSamples.everything)

        #expect(schema.roles == ["Editor", "test role", "grant"])
        #expect(schema.recordTypes.map(\.name) == ["Everything", "cloudkit.share", "Empty"])

        let type = try #require(schema.recordType("Everything"))
        // System fields come first whatever their place in the text.
        #expect(Array(type.fields.prefix(6).map(\.name)) == SystemField.allCases.map(\.rawValue))
        #expect(type.field(.createTime).indexes == [.queryable, .sortable])
        #expect(type.field(.etag).indexes == [.searchable])
        #expect(
            type.userFields.map(\.name) == [
                "anAsset", "someBytes", "aDouble", "anInt", "place", "parent", "title", "stamp",
                "secretBytes", "secret", "secretDouble", "secretInt", "secretPlace", "secretStamp",
                "loose", "whole", "fraction", "tags", "images", "counts", "secrets", "measures",
                "type", "queryable", "cloudkit.title", "with space", "_private",
            ])

        #expect(type.field("anAsset")?.type == .asset)
        #expect(type.field("anAsset")?.type.scalar == .asset)
        #expect(type.field("someBytes")?.type == .bytes)
        #expect(type.field("place") == FieldDefinition(name: "place", type: .location, indexes: [.queryable]))
        #expect(type.field("title")?.indexes == [.queryable, .searchable, .sortable])
        #expect(type.field("anInt")?.indexes == [.queryable, .sortable])

        #expect(type.field("secret") == FieldDefinition(name: "secret", type: .string, isEncrypted: true))
        #expect(type.field("secretDouble") == FieldDefinition(name: "secretDouble", type: .double, isEncrypted: true))
        #expect(type.field("secretPlace")?.isEncrypted == true)
        #expect(type.field("secretStamp")?.type == .timestamp)

        #expect(type.field("loose") == FieldDefinition(name: "loose", type: .double, numberPreference: .unspecified))
        #expect(
            type.field("whole")
                == FieldDefinition(
                    name: "whole", type: .int64, indexes: [.queryable], numberPreference: .int64))
        #expect(
            type.field("fraction")
                == FieldDefinition(
                    name: "fraction", type: .double, indexes: [.sortable], numberPreference: .double))

        #expect(type.field("tags") == FieldDefinition(name: "tags", type: .list(.string), indexes: [.queryable]))
        #expect(type.field("images")?.type == .list(.asset))
        #expect(type.field("secrets") == FieldDefinition(name: "secrets", type: .list(.string), isEncrypted: true))
        #expect(
            type.field("measures")
                == FieldDefinition(
                    name: "measures", type: .list(.double), numberPreference: .double))

        #expect(type.field("type")?.type == .string)
        #expect(type.field("queryable")?.type == .int64)
        #expect(type.field("cloudkit.title")?.type == .string)
        #expect(type.field("with space") != nil)

        #expect(
            type.grants == [
                Grant([.read], to: "_world"),
                Grant([.write, .create], to: "_creator"),
                Grant([.read, .write], to: "Editor"),
                Grant([.read], to: "test role"),
                Grant([.create], to: "grant"),
            ])

        let share = try #require(schema.recordType("cloudkit.share"))
        #expect(share.userFields == [FieldDefinition(name: "cloudkit.title", type: .string)])
        #expect(share.grants == [Grant([.read], to: "_icloud")])

        let empty = try #require(schema.recordType("Empty"))
        #expect(empty.fields == SystemField.allCases.map(\.definition))
        #expect(empty.grants.isEmpty)
    }

    @Test("Keywords match in any case; names keep theirs")
    func keywordCase() throws {
        let schema = try SchemaLanguage.parse(
            """
            dEfInE sChEmA rEcOrD tYpE Note ( Title sTrInG qUeRyAbLe, gRaNt ReAd To "_world" );
            """)
        let note = try #require(schema.recordType("Note"))
        #expect(note.userFields == [FieldDefinition(name: "Title", type: .string, indexes: [.queryable])])
        #expect(note.grants == [Grant([.read], to: "_world")])
        #expect(schema.recordType("note") == nil)
    }

    @Test("Comments of all three kinds are skipped, wherever they stand")
    func comments() throws {
        let schema = try SchemaLanguage.parse(
            """
            // leading comment
            DEFINE /* inline */ SCHEMA -- trailing comment
            RECORD TYPE Note ( /* a comment
            spanning lines */ title STRING, -- one -- two
            // body STRING,
            count INT64/**/QUERYABLE
            );
            /* final comment with "quotes" and ; */
            """)
        #expect(schema.recordType("Note")?.userFields.map(\.name) == ["title", "count"])
        #expect(schema.recordType("Note")?.field("count")?.indexes == [.queryable])
    }

    @Test("Quoted names keep backslash escapes' characters")
    func quotedEscapes() throws {
        let schema = try SchemaLanguage.parse(#"DEFINE SCHEMA RECORD TYPE "say \"hi\"" ( "back\\slash" STRING );"#)
        #expect(schema.recordTypes.map(\.name) == [#"say "hi""#])
        #expect(schema.recordTypes.first?.userFields.map(\.name) == [#"back\slash"#])
    }

    @Test("A role may be created after the record type that grants to it")
    func roleCreatedLater() throws {
        let schema = try SchemaLanguage.parse(
            """
            DEFINE SCHEMA
                RECORD TYPE Note ( GRANT READ TO Auditor );
                CREATE ROLE Auditor;
            """)
        #expect(schema.roles == ["Auditor"])
        #expect(schema.recordType("Note")?.grants == [Grant([.read], to: "Auditor")])
    }

    @Test("A byte order mark before the text is ignored and does not shift columns")
    func byteOrderMark() throws {
        #expect(try SchemaLanguage.parse("\u{FEFF}DEFINE SCHEMA CREATE ROLE a;") == Schema(roles: ["a"]))
        let error = try #require(throws: SchemaParseError.self) {
            try SchemaLanguage.parse("\u{FEFF}DEFINE SCHEMA oops")
        }
        #expect(error.line == 1 && error.column == 15)
    }

    @Test("An empty schema and a schema of roles only")
    func minimalSchemas() throws {
        #expect(try SchemaLanguage.parse("DEFINE SCHEMA") == Schema())
        #expect(try SchemaLanguage.parse("DEFINE SCHEMA CREATE ROLE a; CREATE ROLE b;") == Schema(roles: ["a", "b"]))
    }
}
