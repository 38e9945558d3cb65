/// The just-in-time schema rules of a save: in development a new record type or field is created
/// from the values saved; in production only the deployed schema is accepted. Either way a value
/// must have its field's type.
struct SchemaEvolution {
    let environment: Environment
    /// Where a production refusal for want of a deployed type or field is recorded.
    var trace: RequestTrace? = nil

    /// The most bytes a record type or field name may have.
    static let maximumNameLength = 255

    /// The record type definition that can hold `fields`, or `nil` when the stored one already can.
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for a bad name, a value of the wrong type, or,
    ///   in production, a type or field the schema lacks.
    func evolve(_ recordType: String, for fields: [String: FieldValue], in schema: Schema) throws -> RecordTypeDefinition? {
        // Nearly every save sets only fields the type declares: answered without sorting the
        // names, which the checks below need only to add fields and to refuse in a fixed order.
        if let existing = schema.recordType(recordType),
            fields.allSatisfy({ name, value in
                existing.field(name).map { !$0.isSystem && $0.accepts(value.type) && value.isWellFormed } ?? false
            })
        {
            return nil
        }
        var definition: RecordTypeDefinition
        var changed = false
        if let existing = schema.recordType(recordType) {
            definition = existing
        } else {
            guard Self.isValidName(recordType) else {
                throw CloudStoreError.badRequest(
                    "Invalid record type name '\(recordType)': use a letter followed by letters, digits or '_' (at most 255 bytes)")
            }
            guard environment == .development else {
                trace?.recordSchemaGap(SchemaGap(.recordType, recordType: recordType))
                throw CloudStoreError.badRequest("Cannot create new type \(recordType) in production schema")
            }
            definition = RecordTypeDefinition(name: recordType, grants: Grant.defaults)
            changed = true
        }
        for name in fields.keys.sorted() {
            let value = fields[name]!
            guard value.isWellFormed else {
                throw CloudStoreError.badRequest("Invalid value for field '\(name)': \(Self.malformation(of: value))")
            }
            if let field = definition.field(name) {
                guard !field.isSystem else {
                    throw CloudStoreError.badRequest("Field '\(name)' is a system field and cannot be set")
                }
                guard field.accepts(value.type) else {
                    throw CloudStoreError.badRequest(
                        "invalid attempt to set value type \(value.type) for field '\(name)' for type '\(recordType)', defined to be: \(field.type)"
                    )
                }
                continue
            }
            guard Self.isValidName(name), !name.hasPrefix("___") else {
                throw CloudStoreError.badRequest(
                    "Invalid field name '\(name)': use a letter followed by letters, digits or '_' (at most 255 bytes)")
            }
            guard environment == .development else {
                trace?.recordSchemaGap(SchemaGap(.field, recordType: recordType, field: name))
                throw CloudStoreError.badRequest("Cannot create or modify field '\(name)' in record '\(recordType)' in production schema")
            }
            definition.upsert(FieldDefinition(name: name, type: value.type))
            changed = true
        }
        return changed ? definition : nil
    }

    /// Names of types and fields: a letter, then letters, digits and underscores.
    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first.isASCIILetter, name.utf8.count <= maximumNameLength else {
            return false
        }
        return name.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "_" }
    }

    private static func malformation(of value: FieldValue) -> String {
        switch value {
        case .double: "a double must be a number, not NaN"
        case .location: "latitude must be within -90…90 and longitude within -180…180"
        case .list(let scalar, _): "every element of a \(scalar)_LIST must be a \(scalar)"
        default: "malformed"
        }
    }
}

extension Unicode.Scalar {
    fileprivate var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}
