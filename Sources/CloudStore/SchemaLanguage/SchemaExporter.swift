/// Writes a ``Schema`` in the layout `cktool export-schema` prints:
///
///     DEFINE SCHEMA
///
///         CREATE ROLE DeptManager;
///
///         RECORD TYPE Department (
///             "___createTime" TIMESTAMP QUERYABLE SORTABLE,
///             "___createdBy"  REFERENCE,
///             …
///             phone           LIST<STRING>,
///             GRANT WRITE, CREATE, READ TO DeptManager
///         );
///
/// Four spaces before statements, eight before fields and grants, field types aligned one
/// space after the longest field name of the type, system fields first, grants last, one
/// blank line between statements and a newline at the end. Record types, fields, grants and
/// permissions keep the schema's order, so parsing the output gives back the same schema.
enum SchemaExporter {
    /// The order cktool's exports list indexes in (`STRING QUERYABLE SEARCHABLE SORTABLE` in
    /// every export seen), which is not ``IndexKind``'s declaration order.
    static let indexOrder: [IndexKind] = IndexKind.allCases

    private static let statementIndent = "    "
    private static let memberIndent = "        "

    static func export(_ schema: Schema) -> String {
        var blocks: [String] = []
        if !schema.roles.isEmpty {
            blocks.append(schema.roles.map { "\(statementIndent)CREATE ROLE \(name($0));" }.joined(separator: "\n"))
        }
        blocks += schema.recordTypes.map(recordType)
        guard !blocks.isEmpty else { return "DEFINE SCHEMA\n" }
        return "DEFINE SCHEMA\n\n" + blocks.joined(separator: "\n\n") + "\n"
    }

    private static func recordType(_ recordType: RecordTypeDefinition) -> String {
        let names = recordType.fields.map { name($0.name) }
        let width = (names.map(\.count).max() ?? 0) + 1
        var members: [String] = []
        for (field, fieldName) in zip(recordType.fields, names) {
            let padding = String(repeating: " ", count: width - fieldName.count)
            var line = memberIndent + fieldName + padding + spelling(of: field)
            for kind in indexOrder where field.indexes.contains(kind) { line += " \(kind.rawValue)" }
            members.append(line)
        }
        for grant in recordType.grants {
            let permissions = grant.permissions.map(\.rawValue).joined(separator: ", ")
            members.append("\(memberIndent)GRANT \(permissions) TO \(name(grant.role))")
        }
        return "\(statementIndent)RECORD TYPE \(name(recordType.name)) (\n"
            + members.joined(separator: ",\n")
            + "\n\(statementIndent));"
    }

    // MARK: - Types

    /// A field's type as the language writes it: `STRING`, `ENCRYPTED BYTES`,
    /// `NUMBER PREFERRED AS INT64`, `LIST<REFERENCE>`.
    static func spelling(of field: FieldDefinition) -> String {
        let element: String
        switch field.numberPreference {
        case .some(.unspecified): element = "NUMBER"
        case .some(let preference): element = "NUMBER PREFERRED AS \(preference.rawValue)"
        case .none: element = (field.isEncrypted ? "ENCRYPTED " : "") + spelling(of: field.type.scalar)
        }
        return field.type.isList ? "LIST<\(element)>" : element
    }

    /// A field type as the language writes it, for messages: `ASSET`, `LIST<INT64>`.
    static func spelling(of type: FieldType) -> String {
        type.isList ? "LIST<\(spelling(of: type.scalar))>" : spelling(of: type.scalar)
    }

    private static func spelling(of scalar: ScalarType) -> String {
        // The wire calls assets ASSETID; the schema language calls them ASSET.
        scalar == .asset ? SchemaKeyword.asset.rawValue : scalar.rawValue
    }

    // MARK: - Names

    /// `name` bare when it reads as a plain identifier, else double-quoted.
    ///
    /// Quoted: names outside `[A-Za-z][A-Za-z0-9_]*` (system fields, `_world`, `cloudkit.share`,
    /// names with spaces) and every keyword of the language, reserved or not. cktool has been
    /// seen to leave some keywords bare (`type`), but a quoted name is read the same by every
    /// parser, so quoting all of them is the safe choice.
    static func name(_ name: String) -> String {
        needsQuotes(name) ? quote(name) : name
    }

    /// `name` in double quotes, with `"` and `\` escaped by a backslash.
    static func quote(_ name: String) -> String {
        var quoted = "\""
        for scalar in name.unicodeScalars {
            if scalar == "\"" || scalar == "\\" { quoted.unicodeScalars.append("\\") }
            quoted.unicodeScalars.append(scalar)
        }
        return quoted + "\""
    }

    private static func needsQuotes(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCII, first.properties.isAlphabetic else {
            return true
        }
        let plain = name.unicodeScalars.allSatisfy {
            $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_")
        }
        return !plain || SchemaKeyword(spelling: name) != nil
    }
}
