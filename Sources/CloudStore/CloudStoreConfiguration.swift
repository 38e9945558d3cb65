import Foundation

/// How a ``CloudStore`` is set up: where its files live and how durable its commits are.
public struct CloudStoreConfiguration: Sendable {
    /// The data directory; see the README's "Data directory" section for its layout.
    public var dataDirectory: String
    /// Durability of commits. `.normal` survives a process crash; `.full` also power loss.
    public var synchronous: SynchronousMode
    /// The current time in milliseconds since 1970; replaceable so tests can control it.
    public var clock: @Sendable () -> Int64

    /// Creates a configuration.
    public init(
        dataDirectory: String, synchronous: SynchronousMode = .normal,
        clock: @escaping @Sendable () -> Int64 = { Int64((Date().timeIntervalSince1970 * 1000).rounded(.down)) }
    ) {
        self.dataDirectory = dataDirectory
        self.synchronous = synchronous
        self.clock = clock
    }
}
