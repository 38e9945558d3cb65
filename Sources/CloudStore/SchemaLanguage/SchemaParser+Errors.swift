// MARK: - Syntax errors

extension SchemaParser {
    /// `Encountered "X" at line L, column C. Was expecting one of: "A", "B".`, in the shape of
    /// the messages cktool's generated parser prints, with a hint when one helps.
    func unexpected(
        _ token: SchemaToken, expecting expected: [String], hint: String? = nil
    ) -> SchemaParseError {
        var message = "Encountered \(token.displayed) at \(token.position). "
        message +=
            expected.count == 1
            ? "Was expecting: \(expected[0])." : "Was expecting one of: \(expected.joined(separator: ", "))."
        if let hint = hint ?? self.hint(for: token) { message += " " + hint }
        return error(.syntax, at: token, message)
    }

    /// Explains the two mistakes a generic message leaves puzzling: bare names that need quotes.
    private func hint(for token: SchemaToken) -> String? {
        guard case .unexpected(let text) = token.kind else { return nil }
        if text.unicodeScalars.first.map({ $0 == "_" || ("0"..."9").contains($0) }) == true {
            return "A name that doesn't start with a letter must be written in double quotes: \"\(text)\"."
        }
        if text == ".", let previous, case .word = previous.kind {
            return "A name containing \".\" must be written in double quotes, such as \"cloudkit.share\"."
        }
        return nil
    }
}

// MARK: - Rule errors

extension SchemaParser {
    private func error(_ code: SchemaParseError.Code, at token: SchemaToken, _ message: String) -> SchemaParseError {
        SchemaParseError(code: code, line: token.position.line, column: token.position.column, message: message)
    }

    private func quoted(_ name: String) -> String { SchemaExporter.quote(name) }

    func emptyName(_ role: String, at token: SchemaToken) -> SchemaParseError {
        error(.emptyName, at: token, "Empty \(role) name at \(token.position): a name needs at least one character.")
    }

    func duplicateRecordType(_ name: String, at token: SchemaToken, first: SchemaPosition) -> SchemaParseError {
        error(
            .duplicateRecordType, at: token,
            "Duplicate record type \(quoted(name)) at \(token.position): "
                + "it is already defined at \(first).")
    }

    func duplicateField(
        _ name: String, in recordType: String, at token: SchemaToken, first: SchemaPosition
    ) -> SchemaParseError {
        error(
            .duplicateField, at: token,
            "Duplicate field \(quoted(name)) at \(token.position): "
                + "record type \(quoted(recordType)) already declares it at \(first).")
    }

    func duplicateRole(_ name: String, at token: SchemaToken, first: SchemaPosition) -> SchemaParseError {
        error(
            .duplicateRole, at: token,
            "Duplicate role \(quoted(name)) at \(token.position): it is already created at \(first).")
    }

    func builtInRole(_ name: String, at token: SchemaToken) -> SchemaParseError {
        error(
            .builtInRole, at: token,
            "Role \(quoted(name)) at \(token.position) can't be created: "
                + "it is one of the implicit roles \(Self.implicitRoles).")
    }

    func unknownRole(_ name: String, at token: SchemaToken) -> SchemaParseError {
        error(
            .unknownRole, at: token,
            "Unknown role \(quoted(name)) at \(token.position): "
                + "it is neither created with CREATE ROLE nor one of the implicit roles \(Self.implicitRoles).")
    }

    func duplicatePermission(_ permission: Permission, at token: SchemaToken) -> SchemaParseError {
        error(
            .duplicatePermission, at: token,
            "Duplicate permission \(permission.rawValue) at \(token.position): this grant already lists it.")
    }

    func duplicateIndex(_ kind: IndexKind, field: String, at token: SchemaToken) -> SchemaParseError {
        error(
            .duplicateIndex, at: token,
            "Duplicate index \(kind.rawValue) at \(token.position): field \(quoted(field)) already lists it.")
    }

    func indexNotApplicable(
        _ kind: IndexKind, field: FieldDefinition, reason: String, at token: SchemaToken
    ) -> SchemaParseError {
        error(
            .indexNotApplicable, at: token,
            "\(kind.rawValue) at \(token.position) does not apply to field \(quoted(field.name)) "
                + "of type \(SchemaExporter.spelling(of: field)): \(reason).")
    }

    func systemFieldType(
        _ system: SystemField, declared: FieldDefinition, at token: SchemaToken
    ) -> SchemaParseError {
        error(
            .systemFieldType, at: token,
            "Wrong type for system field \(quoted(system.rawValue)) at \(token.position): "
                + "it is always \(SchemaExporter.spelling(of: system.definition)), "
                + "so it can't be declared \(SchemaExporter.spelling(of: declared)).")
    }

    func unknownSystemField(_ name: String, at token: SchemaToken) -> SchemaParseError {
        let known = SystemField.allCases.map { quoted($0.rawValue) }.joined(separator: ", ")
        return error(
            .unknownSystemField, at: token,
            "Unknown system field \(quoted(name)) at \(token.position): "
                + "names starting with \"___\" are reserved for the system fields \(known).")
    }

    private static var implicitRoles: String {
        [SystemRole.world, SystemRole.authenticated, SystemRole.creator].map { "\"\($0)\"" }.joined(separator: ", ")
    }
}
