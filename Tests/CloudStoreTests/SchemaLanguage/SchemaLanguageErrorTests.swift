import CloudStore
import Testing

/// A schema text that must be rejected, and where and why.
struct BadSchema: Sendable, CustomTestStringConvertible {
    var name: String
    var text: String
    var code: SchemaParseError.Code
    var line: Int
    var column: Int
    /// Words the message must contain.
    var words: [String]

    var testDescription: String { name }
}

@Suite("Schema language: errors")
struct SchemaLanguageErrorTests {
    static let cases: [BadSchema] = [
        BadSchema(
            name: "bad type name",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        title BADTYPE,
                    );
                """,
            code: .syntax, line: 3, column: 15,
            words: [
                #"Encountered "BADTYPE" at line 3, column 15"#, "Was expecting one of:", #""ASSET""#,
                #""ENCRYPTED""#, #""LIST""#, #""NUMBER""#, #""TIMESTAMP""#,
            ]),
        BadSchema(
            name: "missing opening parenthesis",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note
                        title STRING
                    );
                """,
            code: .syntax, line: 3, column: 9,
            words: [#"Encountered "title" at line 3, column 9. Was expecting: "("."#]),
        BadSchema(
            name: "missing closing parenthesis",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        title STRING;
                """,
            code: .syntax, line: 3, column: 21,
            words: [#"Encountered ";" at line 3, column 21"#, #"",""#, #"")""#, #""QUERYABLE""#]),
        BadSchema(
            name: "unterminated quoted name",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        "title STRING,
                        body STRING
                    );
                """,
            code: .syntax, line: 3, column: 9,
            words: ["Unterminated quoted name", "line 3, column 9"]),
        BadSchema(
            name: "unterminated comment",
            text: """
                DEFINE SCHEMA
                    /* roles come later
                    RECORD TYPE Note ( title STRING );
                """,
            code: .syntax, line: 2, column: 5,
            words: ["Unterminated comment", "line 2, column 5", "*/"]),
        BadSchema(
            name: "grant to an unknown role",
            text: """
                DEFINE SCHEMA
                    CREATE ROLE Editor;
                    RECORD TYPE Note (
                        title STRING,
                        GRANT READ TO Editor,
                        GRANT WRITE TO Manager
                    );
                """,
            code: .unknownRole, line: 6, column: 24,
            words: [#"Unknown role "Manager""#, "line 6, column 24", "CREATE ROLE", #""_world""#]),
        BadSchema(
            name: "SEARCHABLE on an INT64",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        count INT64 QUERYABLE SEARCHABLE
                    );
                """,
            code: .indexNotApplicable, line: 3, column: 31,
            words: [
                "SEARCHABLE at line 3, column 31", #"field "count" of type INT64"#,
                "only STRING and LIST<STRING> fields can be SEARCHABLE",
            ]),
        BadSchema(
            name: "system field with a wrong type",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        "___createTime" STRING QUERYABLE
                    );
                """,
            code: .systemFieldType, line: 3, column: 25,
            words: [#"system field "___createTime""#, "line 3, column 25", "always TIMESTAMP", "declared STRING"]),
        BadSchema(
            name: "system field declared as a list",
            text: #"DEFINE SCHEMA RECORD TYPE Note ( "___recordID" LIST<REFERENCE> );"#,
            code: .systemFieldType, line: 1, column: 48,
            words: ["always REFERENCE", "declared LIST<REFERENCE>"]),
        BadSchema(
            name: "duplicate field",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        title STRING,
                        body STRING,
                        title STRING
                    );
                """,
            code: .duplicateField, line: 5, column: 9,
            words: [#"Duplicate field "title" at line 5, column 9"#, #"record type "Note""#, "line 3, column 9"]),
        BadSchema(
            name: "duplicate record type",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE Note (
                        title STRING
                    );
                    RECORD TYPE Note (
                        body STRING
                    );
                """,
            code: .duplicateRecordType, line: 5, column: 17,
            words: [#"Duplicate record type "Note" at line 5, column 17"#, "line 2, column 17"]),
        BadSchema(
            name: "duplicate role",
            text: "DEFINE SCHEMA\nCREATE ROLE Editor;\nCREATE ROLE \"Editor\";",
            code: .duplicateRole, line: 3, column: 13,
            words: [#"Duplicate role "Editor""#, "line 2, column 13"]),
        BadSchema(
            name: "creating an implicit role",
            text: #"DEFINE SCHEMA CREATE ROLE "_icloud";"#,
            code: .builtInRole, line: 1, column: 27,
            words: [#"Role "_icloud""#, "implicit"]),
        BadSchema(
            name: "unknown system field",
            text: #"DEFINE SCHEMA RECORD TYPE Note ( "___createdAt" TIMESTAMP );"#,
            code: .unknownSystemField, line: 1, column: 34,
            words: [#"Unknown system field "___createdAt""#, #""___createTime""#]),
        BadSchema(
            name: "PREFERRED AS a type other than INT64 or DOUBLE",
            text: "DEFINE SCHEMA\n  RECORD TYPE Note (\n    amount NUMBER PREFERRED AS STRING\n  );",
            code: .syntax, line: 3, column: 32,
            words: [#"Encountered "STRING""#, #"Was expecting one of: "DOUBLE", "INT64"."#]),
        BadSchema(
            name: "empty record type name",
            text: #"DEFINE SCHEMA RECORD TYPE "" ( title STRING );"#,
            code: .emptyName, line: 1, column: 27,
            words: ["Empty record type name"]),
        BadSchema(
            name: "empty field name",
            text: #"DEFINE SCHEMA RECORD TYPE Note ( "" STRING );"#,
            code: .emptyName, line: 1, column: 34,
            words: ["Empty field name"]),
        BadSchema(
            name: "missing record type name",
            text: "DEFINE SCHEMA RECORD TYPE ( title STRING );",
            code: .syntax, line: 1, column: 27,
            words: ["Was expecting: a record type name."]),
        BadSchema(
            name: "missing final semicolon",
            text: "DEFINE SCHEMA\nRECORD TYPE Note ( title STRING )\n",
            code: .syntax, line: 3, column: 1,
            words: [#"Encountered end of input at line 3, column 1. Was expecting: ";"."#]),
        BadSchema(
            name: "missing DEFINE SCHEMA",
            text: "RECORD TYPE Note ( title STRING );",
            code: .syntax, line: 1, column: 1,
            words: [#"Was expecting: "DEFINE"."#]),
        BadSchema(
            name: "unquoted reserved word as a field name",
            text: "DEFINE SCHEMA RECORD TYPE Note (\n  sortable INT64\n);",
            code: .syntax, line: 2, column: 3,
            words: [#"Encountered "sortable""#, "reserved word", "double quotes"]),
        BadSchema(
            name: "unquoted dotted record type name",
            text: """
                DEFINE SCHEMA
                    RECORD TYPE cloudkit.share (
                        "___recordID" REFERENCE QUERYABLE
                    );
                """,
            code: .syntax, line: 2, column: 25,
            words: [#"Encountered "." at line 2, column 25. Was expecting: "(""#, "double quotes"]),
        BadSchema(
            name: "unquoted role with a leading underscore",
            text: "DEFINE SCHEMA RECORD TYPE Note ( GRANT READ TO _world );",
            code: .syntax, line: 1, column: 48,
            words: [#"Encountered "_world""#, "a role name", #"double quotes: "_world""#]),
        BadSchema(
            name: "index on an encrypted field",
            text: "DEFINE SCHEMA RECORD TYPE Note ( secret ENCRYPTED STRING QUERYABLE );",
            code: .indexNotApplicable, line: 1, column: 58,
            words: ["QUERYABLE", "ENCRYPTED STRING", "encrypted fields can't be indexed"]),
        BadSchema(
            name: "SEARCHABLE on a list of integers",
            text: "DEFINE SCHEMA RECORD TYPE Note ( tags LIST<INT64> QUERYABLE SEARCHABLE );",
            code: .indexNotApplicable, line: 1, column: 61,
            words: ["SEARCHABLE", "LIST<INT64>", "only STRING and LIST<STRING> fields can be SEARCHABLE"]),
        BadSchema(
            name: "index on an asset",
            text: "DEFINE SCHEMA RECORD TYPE Note ( image ASSET QUERYABLE );",
            code: .indexNotApplicable, line: 1, column: 46,
            words: ["QUERYABLE", "ASSET fields can't be indexed"]),
        BadSchema(
            name: "index listed twice",
            text: "DEFINE SCHEMA RECORD TYPE Note ( title STRING QUERYABLE QUERYABLE );",
            code: .duplicateIndex, line: 1, column: 57,
            words: ["Duplicate index QUERYABLE"]),
        BadSchema(
            name: "permission listed twice",
            text: #"DEFINE SCHEMA RECORD TYPE Note ( GRANT READ, WRITE, READ TO "_world" );"#,
            code: .duplicatePermission, line: 1, column: 53,
            words: ["Duplicate permission READ"]),
        BadSchema(
            name: "ENCRYPTED on a type that can't be encrypted",
            text: "DEFINE SCHEMA RECORD TYPE Note ( owner ENCRYPTED REFERENCE );",
            code: .syntax, line: 1, column: 50,
            words: [#"Encountered "REFERENCE""#, #""BYTES""#, #""TIMESTAMP""#]),
        BadSchema(
            name: "list of lists",
            text: "DEFINE SCHEMA RECORD TYPE Note ( grid LIST<LIST<INT64>> );",
            code: .syntax, line: 1, column: 44,
            words: [#"Encountered "LIST""#]),
        BadSchema(
            name: "trailing comma in a record type",
            text: "DEFINE SCHEMA RECORD TYPE Note ( title STRING, );",
            code: .syntax, line: 1, column: 48,
            words: [#"Encountered ")""#, #""GRANT""#, "a field name"]),
        BadSchema(
            name: "grant without TO",
            text: #"DEFINE SCHEMA RECORD TYPE Note ( GRANT READ "_world" );"#,
            code: .syntax, line: 1, column: 45,
            words: [#"Encountered quoted name "_world""#, #""TO""#]),
        BadSchema(
            name: "positions after CRLF line ends and tabs",
            text: "DEFINE SCHEMA\r\n\tRECORD TYPE Note (\r\n\t\ttitle STRANG\r\n\t);",
            code: .syntax, line: 3, column: 9,
            words: [#"Encountered "STRANG" at line 3, column 9"#]),
        BadSchema(
            name: "positions count scalars, not bytes",
            text: "DEFINE SCHEMA -- schéma à définir\n"
                + "RECORD TYPE \"Café\" ( \"crème\" STRING SEARCHABLE, prix INT64 SEARCHABLE );",
            code: .indexNotApplicable, line: 2, column: 60,
            words: ["SEARCHABLE at line 2, column 60", #"field "prix""#]),
    ]

    @Test("Bad schemas are rejected at the offending token", arguments: cases)
    func rejects(_ bad: BadSchema) throws {
        let error = try #require(throws: SchemaParseError.self) {
            try SchemaLanguage.parse(bad.text)
        }
        let missing = bad.words.filter { !error.message.contains($0) }
        #expect(error.code == bad.code, "\(error)")
        #expect(error.line == bad.line, "\(error)")
        #expect(error.column == bad.column, "\(error)")
        #expect(missing.isEmpty, "missing \(missing) in: \(error)")
        #expect(error.description == error.message)
    }

    @Test("The error names its place in the text both as properties and in its message")
    func errorValue() {
        let text = "DEFINE SCHEMA\n    RECORD TYPE Note (\n        title BADTYPE\n    );"
        #expect(
            throws: SchemaParseError(
                code: .syntax, line: 3, column: 15,
                message: #"Encountered "BADTYPE" at line 3, column 15. Was expecting one of: "ASSET", "BYTES", "DOUBLE", "#
                    + #""ENCRYPTED", "INT64", "LIST", "LOCATION", "NUMBER", "REFERENCE", "STRING", "TIMESTAMP"."#
            )
        ) {
            try SchemaLanguage.parse(text)
        }
    }

    @Test("Every prefix of a valid schema parses or fails at a place inside it; statements end at their \";\"")
    func truncatedTexts() {
        let scalars = Array(SchemaSamples.everything.unicodeScalars)
        for length in 0...scalars.count {
            var prefix = ""
            prefix.unicodeScalars.append(contentsOf: scalars[..<length])
            let lines = prefix.split(separator: "\n", omittingEmptySubsequences: false)
            let endsStatement = length > 0 && scalars[length - 1] == ";"
            let precedesSemicolon = length < scalars.count && scalars[length] == ";"
            do {
                _ = try SchemaLanguage.parse(prefix)
                #expect(!precedesSemicolon, "prefix of \(length) parsed without its \";\"")
            } catch {
                #expect(!endsStatement, "prefix of \(length) ends a statement but failed: \(error)")
                #expect(error.line >= 1 && error.line <= lines.count, "\(error)")
                if error.line >= 1 && error.line <= lines.count {
                    let lineLength = lines[error.line - 1].unicodeScalars.count
                    #expect(error.column >= 1 && error.column <= lineLength + 1, "\(error)")
                }
            }
        }
    }
}
