/// CloudKit's text schema language, the `.ckdb` files `cktool export-schema`, `import-schema`
/// and `validate-schema` read and write.
///
///     let schema = try SchemaLanguage.parse("""
///         DEFINE SCHEMA
///             RECORD TYPE Note (
///                 title STRING QUERYABLE SEARCHABLE,
///                 GRANT READ TO "_world"
///             );
///         """)
///     print(SchemaLanguage.export(schema))
///
/// Keywords match in any letter case; comments (`// …`, `-- …`, `/* … */`) are dropped.
public enum SchemaLanguage {
    /// Parses a schema and checks it the way CloudKit does on import.
    ///
    /// Record types, fields and grants keep the order of the text. Each record type gets all
    /// system fields first: those the text lists with their indexes, the others without, as
    /// CloudKit drops the indexes of a system field a schema leaves out.
    ///
    /// - Parameter text: The schema, starting with `DEFINE SCHEMA`.
    /// - Returns: The schema the text describes.
    /// - Throws: ``SchemaParseError`` with the line and column of the first offending token:
    ///   a grammar error, a duplicate record type, field or role, a grant to an unknown role,
    ///   an index the field's type does not allow, a system field with a type other than its
    ///   own, an unknown `___` name or an empty name.
    public static func parse(_ text: String) throws(SchemaParseError) -> Schema {
        try SchemaParser.parse(text)
    }

    /// Writes `schema` in the layout `cktool export-schema` uses.
    ///
    /// The output is canonical: exporting the schema that parsing it gives yields the same
    /// text byte for byte, and for a schema parsing can produce, `parse(export(schema))`
    /// equals `schema`.
    ///
    /// - Parameter schema: The schema to write.
    /// - Returns: The schema text, ending with a newline.
    public static func export(_ schema: Schema) -> String {
        SchemaExporter.export(schema)
    }
}
