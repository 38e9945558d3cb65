/// A container's environment, as a dictionary key.
struct EnvironmentKey: Hashable, Sendable {
    var container: ContainerIdentifier
    var environment: Environment
}
