/// What the catalog keeps of seeds and personal fields: apart from every environment, so that a
/// reset of development, which empties the environment, leaves them.
protocol SeedStorage: Sendable {
    /// Keeps a seed with its records and blobs, replacing a seed of the same name.
    func insertSeed(_ seed: SeedContent) throws
    /// A container's seeds, by name.
    func seeds(in container: ContainerIdentifier) throws -> [SeedSummary]
    /// The seed `name` of `container` with what it holds; `nil` when there is none.
    func seed(named name: String, in container: ContainerIdentifier) throws -> SeedContent?
    /// Deletes a seed; `false` when there was none.
    func deleteSeed(named name: String, in container: ContainerIdentifier) throws -> Bool
    /// The fields of a container marked personal.
    func personalFields(in container: ContainerIdentifier) throws -> PersonalFields
    /// Marks a field personal, or takes the mark off; `false` when nothing changed.
    func setPersonal(_ personal: Bool, _ field: PersonalField, in container: ContainerIdentifier) throws -> Bool
}
