/// A record type of the schema: its fields (system fields included) and its grants.
public struct RecordTypeDefinition: Hashable, Sendable {
    /// The type's name, such as `Note`.
    public var name: String
    /// The system fields first, in ``SystemField`` order, then the user fields in the order
    /// they were declared or created.
    public private(set) var fields: [FieldDefinition] {
        didSet { positions = Self.positions(of: fields) }
    }
    /// Where each field sits in `fields`, so that a save looks its fields up quickly.
    private var positions = NamePositions([])
    /// The grants on the type, in the order they were written.
    public var grants: [Grant]

    /// Creates a record type. System fields missing from `fields` are added without indexes.
    /// The grants decide who may create, read and write its records in the public database:
    /// none means only administrators may (pass ``Grant/defaults`` for CloudKit's defaults).
    public init(name: String, fields: [FieldDefinition] = [], grants: [Grant] = []) {
        self.name = name
        self.grants = grants
        let system = SystemField.allCases.map { systemField in
            fields.first { $0.name == systemField.rawValue } ?? systemField.definition
        }
        self.fields = system + fields.filter { !$0.isSystem }
        positions = Self.positions(of: self.fields)
    }

    private static func positions(of fields: [FieldDefinition]) -> NamePositions {
        NamePositions(fields.map(\.name))
    }

    public static func == (lhs: RecordTypeDefinition, rhs: RecordTypeDefinition) -> Bool {
        lhs.name == rhs.name && lhs.fields == rhs.fields && lhs.grants == rhs.grants
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(fields)
        hasher.combine(grants)
    }

    /// The user-defined fields, without the system fields.
    public var userFields: [FieldDefinition] { fields.filter { !$0.isSystem } }

    /// The field called `name`, system or user.
    public func field(_ name: String) -> FieldDefinition? { positions.position(of: name).map { fields[$0] } }

    /// The definition of a system field.
    public func field(_ system: SystemField) -> FieldDefinition {
        field(system.rawValue) ?? system.definition
    }

    /// Adds a user field, or replaces the field of the same name.
    public mutating func upsert(_ field: FieldDefinition) {
        if let index = positions.position(of: field.name) {
            fields[index] = field
        } else {
            fields.append(field)
        }
    }
}
