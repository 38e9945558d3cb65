/// What a console operator may do: an owner everything; a developer everything in development
/// and reading in production, but no credentials and no operators; a viewer reads schema, logs,
/// usage and the public database, and changes nothing. ``OperatorAccess`` decides by it.
public enum OperatorRole: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    /// Does everything.
    case owner
    /// Changes development, reads production; manages no credentials and no operators.
    case developer
    /// Reads schema, logs, usage and the public database; changes nothing.
    case viewer

    /// A role from its name (`owner`, `developer`, `viewer`).
    /// - Throws: ``CloudStoreError/badRequest(_:)`` for another name.
    public init(parsing text: String) throws {
        guard let role = OperatorRole(rawValue: text.lowercased()) else {
            throw CloudStoreError.badRequest("An operator's role is owner, developer or viewer, not '\(text)'")
        }
        self = role
    }

    /// The role's name.
    public var description: String { rawValue }

    /// What the role may do, in a sentence for people.
    public var summary: String {
        switch self {
        case .owner: "Does everything."
        case .developer: "Changes development and reads production; manages no credentials or operators."
        case .viewer: "Reads schema, logs, usage and the public database; changes nothing."
        }
    }
}
