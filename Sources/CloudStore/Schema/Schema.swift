/// The schema of one environment: security roles and record types.
public struct Schema: Hashable, Sendable {
    /// Custom security roles (the implicit `_world`, `_icloud` and `_creator` are not listed).
    public var roles: [String]
    /// The record types, in the order they were declared or created.
    public var recordTypes: [RecordTypeDefinition] {
        didSet { positions = Self.positions(of: recordTypes) }
    }
    /// Where each type sits in `recordTypes`, for lookups by name in constant time.
    private var positions: [String: Int] = [:]

    /// Creates a schema.
    public init(roles: [String] = [], recordTypes: [RecordTypeDefinition] = []) {
        self.roles = roles
        self.recordTypes = recordTypes
        positions = Self.positions(of: recordTypes)
    }

    private static func positions(of types: [RecordTypeDefinition]) -> [String: Int] {
        Dictionary(types.enumerated().map { ($0.element.name, $0.offset) }, uniquingKeysWith: { first, _ in first })
    }

    /// The record type called `name`.
    public func recordType(_ name: String) -> RecordTypeDefinition? {
        positions[name].map { recordTypes[$0] }
    }

    public static func == (lhs: Schema, rhs: Schema) -> Bool {
        lhs.roles == rhs.roles && lhs.recordTypes == rhs.recordTypes
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(roles)
        hasher.combine(recordTypes)
    }
}
