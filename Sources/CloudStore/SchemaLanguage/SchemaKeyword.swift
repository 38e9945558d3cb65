/// The keywords of CloudKit's schema language. They are matched in any letter case.
enum SchemaKeyword: String, CaseIterable, Sendable {
    case define = "DEFINE"
    case schema = "SCHEMA"
    case create = "CREATE"
    case role = "ROLE"
    case record = "RECORD"
    case type = "TYPE"
    case grant = "GRANT"
    case read = "READ"
    case write = "WRITE"
    case to = "TO"
    case queryable = "QUERYABLE"
    case sortable = "SORTABLE"
    case searchable = "SEARCHABLE"
    case asset = "ASSET"
    case bytes = "BYTES"
    case double = "DOUBLE"
    case int64 = "INT64"
    case location = "LOCATION"
    case reference = "REFERENCE"
    case string = "STRING"
    case timestamp = "TIMESTAMP"
    case encrypted = "ENCRYPTED"
    case number = "NUMBER"
    case preferred = "PREFERRED"
    case `as` = "AS"
    case list = "LIST"

    /// The keyword spelled `spelling`, in any letter case.
    init?(spelling: String) {
        // Keywords are ASCII, so uppercasing cannot merge two different spellings into one.
        self.init(rawValue: spelling.uppercased())
    }

    /// Words that can never be bare names, as Apple's grammar reserves them: where a name may
    /// stand, `GRANT` would start a grant and the others could be read as field options.
    /// Every other keyword is still accepted as a bare name where only a name can stand
    /// (cktool's own exports contain fields such as `type STRING`).
    static let reserved: Set<SchemaKeyword> = [.grant, .preferred, .queryable, .sortable, .searchable]

    /// The keyword quoted as error messages list it: `"ASSET"`.
    var displayed: String { "\"\(rawValue)\"" }
}
