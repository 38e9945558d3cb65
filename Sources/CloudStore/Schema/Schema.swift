/// The schema of one environment: security roles and record types.
public struct Schema: Hashable, Sendable {
    /// Custom security roles (the implicit `_world`, `_icloud` and `_creator` are not listed).
    public var roles: [String]
    /// The record types, in the order they were declared or created.
    public var recordTypes: [RecordTypeDefinition]

    /// Creates a schema.
    public init(roles: [String] = [], recordTypes: [RecordTypeDefinition] = []) {
        self.roles = roles
        self.recordTypes = recordTypes
    }

    /// The record type called `name`.
    public func recordType(_ name: String) -> RecordTypeDefinition? {
        recordTypes.first { $0.name == name }
    }
}
