/// Why a text in CloudKit's schema language (`.ckdb`) was rejected, and where.
///
/// `line` and `column` are 1-based and point at the offending token; columns count Unicode
/// scalars, so a tab is one column. `message` is complete on its own and names the position
/// too, in the spirit of cktool's messages:
///
///     Encountered "BADTYPE" at line 6, column 25. Was expecting one of: "ASSET", "BYTES", …
///     Duplicate field "title" at line 9, column 9: record type "Note" already declares it at line 7, column 9.
public struct SchemaParseError: Error, CustomStringConvertible, Equatable, Sendable {
    /// What kind of rule the text broke, for callers that react to some errors differently.
    public enum Code: String, Hashable, Sendable {
        /// The text does not follow the grammar: an unexpected token, an unterminated name
        /// or comment, a missing `;` or parenthesis.
        case syntax
        /// A record type is defined twice.
        case duplicateRecordType
        /// A record type declares the same field twice.
        case duplicateField
        /// A role is created twice.
        case duplicateRole
        /// `CREATE ROLE` names one of the implicit roles `_world`, `_icloud` or `_creator`.
        case builtInRole
        /// A grant names a role that is neither created in the schema nor implicit.
        case unknownRole
        /// A grant lists the same permission twice.
        case duplicatePermission
        /// A field lists the same index twice.
        case duplicateIndex
        /// An index that the field's type (or its encryption) does not allow.
        case indexNotApplicable
        /// A system field declared with a type other than its own.
        case systemFieldType
        /// A name starting with `___` that is not one of the system fields.
        case unknownSystemField
        /// An empty quoted name, `""`.
        case emptyName
    }

    /// The kind of rule broken.
    public var code: Code
    /// The 1-based line of the offending token.
    public var line: Int
    /// The 1-based column of the offending token, in Unicode scalars.
    public var column: Int
    /// What is wrong, in plain words, position included.
    public var message: String

    /// Creates an error.
    public init(code: Code, line: Int, column: Int, message: String) {
        self.code = code
        self.line = line
        self.column = column
        self.message = message
    }

    /// The message, as cktool would print it after "Schema validation failed: ".
    public var description: String { message }
}
