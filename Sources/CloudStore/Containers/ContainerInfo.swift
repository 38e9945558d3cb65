/// A container as the catalog lists it.
public struct ContainerInfo: Hashable, Sendable {
    /// The container's identifier.
    public var identifier: ContainerIdentifier
    /// When it was created, in milliseconds since 1970.
    public var created: Int64

    /// Creates a container description.
    public init(identifier: ContainerIdentifier, created: Int64) {
        self.identifier = identifier
        self.created = created
    }
}
