/// A signed-in user's session, proven by web auth tokens. It ends when its user signs out (or is
/// signed out), when it has not been used for ``idleLifetime``, or at ``expires`` whatever happens.
public struct WebSession: Hashable, Sendable {
    /// The session's id.
    public var id: String
    /// The container the session belongs to.
    public var container: ContainerIdentifier
    /// The environment whose API token the user signed in through: the session works there
    /// only, and ends when that environment is reset. `nil` for sessions opened before sessions
    /// kept their environment, which work in both and end at a reset of development.
    public var environment: Environment?
    /// The signed-in user.
    public var userRecordName: String
    /// How long the session lives without being used, in milliseconds: 30 minutes, or two weeks
    /// with "keep me signed in", unless configured otherwise.
    public var idleLifetime: Int64
    /// When the session began, in milliseconds since 1970.
    public var created: Int64
    /// When the session ends however much it is used, in milliseconds since 1970.
    public var expires: Int64

    /// Creates a session description.
    public init(
        id: String, container: ContainerIdentifier, environment: Environment?, userRecordName: String, idleLifetime: Int64, created: Int64,
        expires: Int64
    ) {
        self.id = id
        self.container = container
        self.environment = environment
        self.userRecordName = userRecordName
        self.idleLifetime = idleLifetime
        self.created = created
        self.expires = expires
    }
}
