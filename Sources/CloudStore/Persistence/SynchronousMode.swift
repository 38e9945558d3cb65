/// How a connection treats durability. See the README for what each promises.
public enum SynchronousMode: String, Sendable, CaseIterable {
    /// Commits survive a process crash; the last ones may roll back on power loss.
    case normal = "NORMAL"
    /// Commits also survive power loss, at the price of a sync per commit.
    case full = "FULL"
}
