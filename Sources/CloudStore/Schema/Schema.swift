/// The schema of one environment: security roles and record types.
public struct Schema: Hashable, Sendable {
    /// Custom security roles (the implicit `_world`, `_icloud` and `_creator` are not listed).
    public var roles: [String]
    /// The record types, in the order they were declared or created.
    public var recordTypes: [RecordTypeDefinition] {
        didSet { positions = Self.positions(of: recordTypes) }
    }
    /// Where each type sits in `recordTypes`, for lookups by name.
    private var positions = NamePositions([])

    /// Creates a schema.
    public init(roles: [String] = [], recordTypes: [RecordTypeDefinition] = []) {
        self.roles = roles
        self.recordTypes = recordTypes
        positions = Self.positions(of: recordTypes)
    }

    private static func positions(of types: [RecordTypeDefinition]) -> NamePositions {
        NamePositions(types.map(\.name))
    }

    /// The record type called `name`.
    public func recordType(_ name: String) -> RecordTypeDefinition? {
        positions.position(of: name).map { recordTypes[$0] }
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.roles == rhs.roles && lhs.recordTypes == rhs.recordTypes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(roles)
        hasher.combine(recordTypes)
    }
}
