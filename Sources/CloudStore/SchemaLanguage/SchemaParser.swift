/// A recursive-descent parser for CloudKit's schema language. It checks the grammar and the
/// rules CloudKit applies on import in the same pass, so every error points at the token
/// that broke a rule.
///
/// The grammar, as Apple publishes it:
///
///     create-schema: DEFINE SCHEMA [ { create-role | record-type } ";" ] ...
///     create-role:   CREATE ROLE %role-name%
///     record-type:   RECORD TYPE %type-name% (
///                        { %field-name% data-type [ QUERYABLE | SORTABLE | SEARCHABLE ] ...
///                        | GRANT { READ | CREATE | WRITE } [, ... ] TO %role-name% } [, ...] )
///     data-type:     primitive-type | LIST < primitive-type >
///     primitive-type: ASSET | BYTES | DOUBLE | INT64 | LOCATION | REFERENCE | STRING | TIMESTAMP
///                   | ENCRYPTED { BYTES | STRING | DOUBLE | INT64 | LOCATION | TIMESTAMP }
///                   | NUMBER [ PREFERRED AS { INT64 | DOUBLE } ]
struct SchemaParser {
    /// The type a `NUMBER` field with no preference is given in the model. Either integers
    /// or doubles can be stored in it (``FieldDefinition/accepts(_:)``); DOUBLE is the type
    /// that holds both without truncating fractions.
    static let unspecifiedNumberType = ScalarType.double

    private let tokens: [SchemaToken]
    private var cursor = 0

    private var roles: [String] = []
    private var rolePositions: [String: SchemaPosition] = [:]
    private var recordTypes: [RecordTypeDefinition] = []
    private var recordTypePositions: [String: SchemaPosition] = [:]
    /// Grants are checked against the roles once the whole text is read, since a role may
    /// be created after the record type that uses it.
    private var grantedRoles: [(role: String, token: SchemaToken)] = []

    private init(tokens: [SchemaToken]) {
        self.tokens = tokens
    }

    /// Parses and validates `text`.
    static func parse(_ text: String) throws(SchemaParseError) -> Schema {
        var parser = SchemaParser(tokens: try SchemaLexer.tokenize(text))
        return try parser.schema()
    }

    // MARK: - Statements

    private mutating func schema() throws(SchemaParseError) -> Schema {
        try expect(.define)
        try expect(.schema)
        while current.kind != .end {
            if current.is(.create) {
                try role()
            } else if current.is(.record) {
                try recordType()
            } else {
                let expected = [SchemaKeyword.create.displayed, SchemaKeyword.record.displayed, "end of input"]
                throw unexpected(current, expecting: expected)
            }
            try expect(";")
        }
        for (role, token) in grantedRoles where !SystemRole.all.contains(role) && rolePositions[role] == nil {
            throw unknownRole(role, at: token)
        }
        return Schema(roles: roles, recordTypes: recordTypes)
    }

    private mutating func role() throws(SchemaParseError) {
        advance()  // CREATE
        try expect(.role)
        let (role, token) = try name("role")
        if SystemRole.all.contains(role) { throw builtInRole(role, at: token) }
        if let first = rolePositions[role] { throw duplicateRole(role, at: token, first: first) }
        rolePositions[role] = token.position
        roles.append(role)
    }

    private mutating func recordType() throws(SchemaParseError) {
        advance()  // RECORD
        try expect(.type)
        let (typeName, token) = try name("record type")
        if let first = recordTypePositions[typeName] {
            throw duplicateRecordType(typeName, at: token, first: first)
        }
        recordTypePositions[typeName] = token.position
        try expect("(")

        var fields: [FieldDefinition] = []
        var fieldPositions: [String: SchemaPosition] = [:]
        var grants: [Grant] = []
        if current.is(")") {
            advance()  // An empty body: `RECORD TYPE Empty ()`.
        } else {
            while true {
                var expectedNext = [",", ")"].map(Self.literal)
                if current.is(.grant) {
                    grants.append(try grant())
                } else if current.isNameCandidate {
                    let field = try self.field(in: typeName, seen: &fieldPositions)
                    fields.append(field)
                    expectedNext += Self.wordsThatMayFollow(field)
                } else {
                    // Only an empty body may close right after "(".
                    let close = fields.isEmpty && grants.isEmpty ? [Self.literal(")")] : []
                    throw unexpected(current, expecting: close + [SchemaKeyword.grant.displayed, "a field name"])
                }
                if current.is(",") {
                    advance()
                    continue
                }
                guard current.is(")") else { throw unexpected(current, expecting: expectedNext) }
                advance()
                break
            }
        }
        recordTypes.append(RecordTypeDefinition(name: typeName, fields: fields, grants: grants))
    }

    // MARK: - Fields

    private mutating func field(
        in recordType: String, seen: inout [String: SchemaPosition]
    ) throws(SchemaParseError) -> FieldDefinition {
        let (name, nameToken) = try self.name("field")
        let system = SystemField(rawValue: name)
        if system == nil, name.hasPrefix("___") { throw unknownSystemField(name, at: nameToken) }
        if let first = seen[name] { throw duplicateField(name, in: recordType, at: nameToken, first: first) }
        seen[name] = nameToken.position

        let typeToken = current
        var field = try dataType(named: name)
        if let system, field != system.definition {
            throw systemFieldType(system, declared: field, at: typeToken)
        }
        while let kind = indexKind(current) {
            if field.indexes.contains(kind) { throw duplicateIndex(kind, field: name, at: current) }
            if let reason = Self.reasonIndexDoesNotApply(kind, to: field) {
                throw indexNotApplicable(kind, field: field, reason: reason, at: current)
            }
            field.indexes.insert(kind)
            advance()
        }
        return field
    }

    /// Parses `data-type` into a field called `name` with no indexes yet.
    private mutating func dataType(named name: String) throws(SchemaParseError) -> FieldDefinition {
        guard current.is(.list) else { return try primitiveType(named: name, inList: false) }
        advance()
        try expect("<")
        var field = try primitiveType(named: name, inList: true)
        if current.is(">") {
            advance()
        } else {
            let preferred = field.numberPreference == .unspecified ? [SchemaKeyword.preferred.displayed] : []
            throw unexpected(current, expecting: [Self.literal(">")] + preferred)
        }
        field.type.isList = true
        return field
    }

    private static let plainTypes: [SchemaKeyword: ScalarType] = [
        .asset: .asset, .bytes: .bytes, .double: .double, .int64: .int64,
        .location: .location, .reference: .reference, .string: .string, .timestamp: .timestamp,
    ]
    private static let encryptableTypes: [SchemaKeyword: ScalarType] = [
        .bytes: .bytes, .double: .double, .int64: .int64, .location: .location, .string: .string,
        .timestamp: .timestamp,
    ]
    private static let numberPreferences: [SchemaKeyword: NumberPreference] = [.double: .double, .int64: .int64]

    private mutating func primitiveType(named name: String, inList: Bool) throws(SchemaParseError) -> FieldDefinition {
        let keyword = current.keyword
        if let keyword, let scalar = Self.plainTypes[keyword] {
            advance()
            return FieldDefinition(name: name, type: FieldType(scalar))
        }
        switch keyword {
        case .encrypted:
            advance()
            guard let keyword = current.keyword, let scalar = Self.encryptableTypes[keyword] else {
                throw unexpected(current, expecting: Self.displayed(Self.encryptableTypes.keys))
            }
            advance()
            return FieldDefinition(name: name, type: FieldType(scalar), isEncrypted: true)
        case .number:
            advance()
            guard current.is(.preferred) else {
                return FieldDefinition(
                    name: name, type: FieldType(Self.unspecifiedNumberType), numberPreference: .unspecified)
            }
            advance()
            try expect(.as)
            guard let keyword = current.keyword, let preference = Self.numberPreferences[keyword] else {
                throw unexpected(current, expecting: Self.displayed(Self.numberPreferences.keys))
            }
            advance()
            let scalar: ScalarType = preference == .int64 ? .int64 : .double
            return FieldDefinition(name: name, type: FieldType(scalar), numberPreference: preference)
        default:
            let choices = Array(Self.plainTypes.keys) + [.encrypted, .number] + (inList ? [] : [.list])
            throw unexpected(current, expecting: Self.displayed(choices))
        }
    }

    private func indexKind(_ token: SchemaToken) -> IndexKind? {
        guard let keyword = token.keyword else { return nil }
        return IndexKind(rawValue: keyword.rawValue)
    }

    /// Why `kind` may not be declared on `field`, or `nil` when it may.
    static func reasonIndexDoesNotApply(_ kind: IndexKind, to field: FieldDefinition) -> String? {
        // CloudKit stores encrypted values so that the server cannot read them, so it cannot
        // index them either.
        if field.isEncrypted { return "encrypted fields can't be indexed" }
        if kind.applies(to: field.type) { return nil }
        if field.type.scalar == .asset || field.type.scalar == .bytes {
            return "\(SchemaExporter.spelling(of: FieldType(field.type.scalar))) fields can't be indexed"
        }
        switch kind {
        case .searchable: return "only STRING and LIST<STRING> fields can be SEARCHABLE"
        default: return "LIST<LOCATION> fields can't be indexed"
        }
    }

    // MARK: - Grants

    private mutating func grant() throws(SchemaParseError) -> Grant {
        advance()  // GRANT
        var permissions: [Permission] = []
        while true {
            guard let keyword = current.keyword, let permission = Permission(rawValue: keyword.rawValue) else {
                throw unexpected(current, expecting: Permission.allCases.map { Self.literal($0.rawValue) })
            }
            if permissions.contains(permission) { throw duplicatePermission(permission, at: current) }
            permissions.append(permission)
            advance()
            guard current.is(",") else { break }
            advance()
        }
        guard current.is(.to) else {
            throw unexpected(current, expecting: [Self.literal(","), SchemaKeyword.to.displayed])
        }
        advance()
        let (role, token) = try name("role")
        grantedRoles.append((role, token))
        return Grant(permissions, to: role)
    }

    // MARK: - Tokens

    private var current: SchemaToken { tokens[cursor] }

    private mutating func advance() {
        if cursor < tokens.count - 1 { cursor += 1 }
    }

    private mutating func expect(_ keyword: SchemaKeyword) throws(SchemaParseError) {
        guard current.is(keyword) else { throw unexpected(current, expecting: [keyword.displayed]) }
        advance()
    }

    private mutating func expect(_ symbol: Unicode.Scalar) throws(SchemaParseError) {
        guard current.is(symbol) else { throw unexpected(current, expecting: [Self.literal(String(symbol))]) }
        advance()
    }

    /// Reads a name: a double-quoted name, or a bare word that is not a reserved word.
    private mutating func name(_ role: String) throws(SchemaParseError) -> (String, SchemaToken) {
        let token = current
        switch token.kind {
        case .quoted(let name):
            if name.isEmpty { throw emptyName(role, at: token) }
            advance()
            return (name, token)
        case .word(let word):
            if let keyword = SchemaKeyword(spelling: word), SchemaKeyword.reserved.contains(keyword) {
                throw unexpected(
                    token, expecting: ["a \(role) name"],
                    hint: "\"\(word)\" is a reserved word; write it in double quotes to use it as a name.")
            }
            advance()
            return (word, token)
        default:
            throw unexpected(token, expecting: ["a \(role) name"])
        }
    }

    /// The previous token, for hints that depend on what came before.
    var previous: SchemaToken? { cursor > 0 ? tokens[cursor - 1] : nil }

    /// The words that could still continue a field declaration: `PREFERRED` after a bare
    /// `NUMBER`, and the indexes not yet given.
    private static func wordsThatMayFollow(_ field: FieldDefinition) -> [String] {
        let isBareNumber = field.numberPreference == .unspecified && !field.type.isList
        let preferred = isBareNumber ? [SchemaKeyword.preferred.displayed] : []
        return preferred + SchemaExporter.indexOrder.filter { !field.indexes.contains($0) }.map { literal($0.rawValue) }
    }

    /// A literal as error messages list it: `"("`, `"TO"`.
    private static func literal(_ text: String) -> String { "\"\(text)\"" }

    private static func displayed(_ keywords: some Collection<SchemaKeyword>) -> [String] {
        keywords.map(\.rawValue).sorted().map(literal)
    }
}

extension SchemaToken {
    /// The keyword this token spells, if it is a bare word that is one.
    var keyword: SchemaKeyword? {
        if case .word(let text) = kind { return SchemaKeyword(spelling: text) }
        return nil
    }

    /// Whether the token could start a name (a reserved word still gets a precise error there).
    var isNameCandidate: Bool {
        switch kind {
        case .word, .quoted: true
        default: false
        }
    }
}
