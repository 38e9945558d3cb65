/// The server-wide catalog: containers and settings.
protocol CatalogStorage: Sendable {
    /// The server's secret, created on first use, used to sign tokens and markers.
    func secret() throws -> [UInt8]
    /// Every container, by identifier.
    func containers() throws -> [ContainerInfo]
    /// The container with `identifier`, if it exists.
    func container(_ identifier: ContainerIdentifier) throws -> ContainerInfo?
    /// Registers a container.
    /// - Throws: ``CloudStoreError/exists(_:)`` when it is already registered.
    func createContainer(_ identifier: ContainerIdentifier, created: Int64) throws -> ContainerInfo
}
