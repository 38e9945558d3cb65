/// A field of a record type that holds personal data: its values are replaced by fakes when
/// records are copied from production to development.
public struct PersonalField: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The record type.
    public var recordType: String
    /// The field.
    public var field: String

    /// A field of a type.
    public init(recordType: String, field: String) {
        self.recordType = recordType
        self.field = field
    }

    public static func < (lhs: PersonalField, rhs: PersonalField) -> Bool { (lhs.recordType, lhs.field) < (rhs.recordType, rhs.field) }

    /// `Person.email`.
    public var description: String { "\(recordType).\(field)" }
}

/// The fields of a container's schema marked personal. Kept with the container beside its
/// schemas rather than in the schema language, which has no way to carry them: one set for both
/// environments, so that a mark holds for production's records and survives a reset or a deploy.
public struct PersonalFields: Hashable, Sendable {
    /// The fields marked.
    public var fields: Set<PersonalField>

    /// A set of marks.
    public init(_ fields: Set<PersonalField> = []) { self.fields = fields }

    /// Whether `field` of `recordType` is marked personal.
    public func contains(_ field: String, of recordType: String) -> Bool {
        fields.contains(PersonalField(recordType: recordType, field: field))
    }

    /// The personal fields of `recordType`.
    public func fields(of recordType: String) -> Set<String> { Set(fields.filter { $0.recordType == recordType }.map(\.field)) }
}
