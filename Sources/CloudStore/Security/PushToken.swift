/// A push token made by `tokens/create`: the identity a client long-polls its notifications with.
public struct PushToken: Hashable, Sendable {
    /// The token, URL-safe base64.
    public var token: String
    /// The container it belongs to.
    public var container: ContainerIdentifier
    /// The environment it belongs to.
    public var environment: Environment
    /// `development` or `production`, as the client asked.
    public var apnsEnvironment: String
    /// The user it is registered to, once registered by a signed-in caller.
    public var userRecordName: String?
    /// When it was created, in milliseconds since 1970.
    public var created: Int64

    /// Creates a push token description.
    public init(
        token: String, container: ContainerIdentifier, environment: Environment, apnsEnvironment: String,
        userRecordName: String?, created: Int64
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.apnsEnvironment = apnsEnvironment
        self.userRecordName = userRecordName
        self.created = created
    }
}
