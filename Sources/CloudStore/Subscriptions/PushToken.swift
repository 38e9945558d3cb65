import Crypto
import Foundation

/// A push token made by `tokens/create`: the identity a client long-polls its notifications with.
///
/// A token a user holds lives as long as the session that created or registered it: it ends
/// with that session's sign-out, and with every one of the user's tokens when all their sessions
/// end (sign out everywhere, a new password, removal). It also ends after going unused (no
/// courier poll, no registration) for ``CloudStoreConfiguration/boundPushTokenIdleLifetime``.
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
    /// The web session that created or last registered it for its user; `nil` for a token no
    /// user holds, or one bound before tokens kept their session.
    public var session: String?
    /// When it was bound to its user, in milliseconds since 1970: it gets that user's
    /// notifications queued from then on. `nil` while no user holds it.
    public var bound: Int64?
    /// When it was last used (created, registered or polled), in milliseconds since 1970.
    public var lastUsed: Int64
    /// When the courier was last polled with it (a poll or a stream opened), in milliseconds
    /// since 1970, to ``CloudStore/pushTokenPollResolution``; `nil` before its first poll, and
    /// for a token no user holds, whose polls are not noted.
    public var lastPolled: Int64?

    /// A name for the token that does not reveal it (the courier's only credential): the first
    /// 16 hex digits of its SHA-256, what operators list and revoke it by.
    public var id: String { Self.id(of: token) }

    /// The ``id`` of the token `token`.
    static func id(of token: String) -> String { String(SecureToken.hexString(Array(SHA256.hash(data: Data(token.utf8)))).prefix(16)) }

    /// Creates a push token description.
    public init(
        token: String, container: ContainerIdentifier, environment: Environment, apnsEnvironment: String,
        userRecordName: String?, created: Int64, session: String? = nil, bound: Int64? = nil, lastUsed: Int64? = nil,
        lastPolled: Int64? = nil
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.apnsEnvironment = apnsEnvironment
        self.userRecordName = userRecordName
        self.created = created
        self.session = session
        self.bound = bound ?? (userRecordName == nil ? nil : created)
        self.lastUsed = lastUsed ?? created
        self.lastPolled = lastPolled
    }
}
