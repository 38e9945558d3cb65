/// A signed-in user's session, proven by a web auth token.
public struct WebSession: Hashable, Sendable {
    /// The session's id.
    public var id: String
    /// The container the session belongs to.
    public var container: ContainerIdentifier
    /// The signed-in user.
    public var userRecordName: String
    /// How long each web auth token of the session stays valid after it is issued, in milliseconds.
    public var tokenLifetime: Int64

    /// Creates a session description.
    public init(id: String, container: ContainerIdentifier, userRecordName: String, tokenLifetime: Int64) {
        self.id = id
        self.container = container
        self.userRecordName = userRecordName
        self.tokenLifetime = tokenLifetime
    }
}
