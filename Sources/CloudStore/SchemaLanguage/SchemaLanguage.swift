/// CloudKit's text schema language, the `.ckdb` files `cktool export-schema`, `import-schema`
/// and `validate-schema` read and write.
public enum SchemaLanguage {
    /// Writes `schema` in the layout `cktool export-schema` uses.
    ///
    /// The output is canonical: the same schema always gives the same text.
    ///
    /// - Parameter schema: The schema to write.
    /// - Returns: The schema text, ending with a newline.
    public static func export(_ schema: Schema) -> String {
        SchemaExporter.export(schema)
    }
}
