/// One of a container's two environments. Development changes its schema just in time;
/// production accepts only the deployed schema.
public enum Environment: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
    case development
    case production

    public var description: String { rawValue }
}
