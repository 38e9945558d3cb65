/// A user of a container's apps, who signs in with a name and password to get a web auth token.
/// (Operators of the server are separate.)
public struct AppUser: Hashable, Sendable {
    /// `_` followed by 32 hexadecimal characters, as CloudKit names users.
    public var userRecordName: String
    /// The container the user belongs to.
    public var container: ContainerIdentifier
    /// The name the user signs in with; unique in the container, compared without case.
    public var name: String
    /// An email address, for discovery.
    public var emailAddress: String?
    /// Given name.
    public var firstName: String?
    /// Family name.
    public var lastName: String?
    /// When the user was added, in milliseconds since 1970.
    public var created: Int64
    /// Whether other users may find this one by email address or user record name
    /// (`users/discover`, `users/lookup/*`), as CloudKit's user discoverability permission.
    public var isDiscoverable: Bool

    /// Creates a user description.
    public init(
        userRecordName: String, container: ContainerIdentifier, name: String, emailAddress: String? = nil,
        firstName: String? = nil, lastName: String? = nil, created: Int64, isDiscoverable: Bool = false
    ) {
        self.isDiscoverable = isDiscoverable
        self.userRecordName = userRecordName
        self.container = container
        self.name = name
        self.emailAddress = emailAddress
        self.firstName = firstName
        self.lastName = lastName
        self.created = created
    }
}
