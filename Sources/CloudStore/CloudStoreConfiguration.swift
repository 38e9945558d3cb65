import Foundation

/// How a ``CloudStore`` is set up: where its files live and how durable its commits are.
public struct CloudStoreConfiguration: Sendable {
    /// The data directory; see the README's "Data directory" section for its layout.
    public var dataDirectory: String
    /// Durability of commits. `.normal` survives a process crash; `.full` also power loss.
    public var synchronous: SynchronousMode
    /// The current time in milliseconds since 1970; replaceable so tests can control it.
    public var clock: @Sendable () -> Int64
    /// How long a web auth token stays valid after it is issued, in milliseconds (CloudKit: 30 minutes).
    /// Every authenticated response issues a fresh one, so active sessions go on; an earlier
    /// token stays valid until its own lifetime ends, which is the grace period of rotation.
    public var webAuthTokenLifetime: Int64 = 30 * 60 * 1000
    /// The same for users who chose "keep me signed in" (CloudKit: two weeks).
    public var keepSignedInLifetime: Int64 = 14 * 24 * 60 * 60 * 1000
    /// How passwords are hashed.
    public var passwordHasher = PasswordHasher()

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
