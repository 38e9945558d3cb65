import Foundation

/// An API token: what `ckAPIToken` carries. Alone it makes a request act as the world; with a
/// web auth token, as that signed-in user.
public struct APIToken: Hashable, Sendable {
    /// 64 lowercase hexadecimal characters, as CloudKit issues them.
    public var token: String
    /// The container the token opens.
    public var container: ContainerIdentifier
    /// The environment the token opens.
    public var environment: Environment
    /// A label for people.
    public var name: String
    /// Origins browsers may call from (`https://app.example.com`); `*` allows any. None allows
    /// only this server's own pages.
    public var allowedOrigins: [String]
    /// Where sign-in sends the user back with `?ckWebAuthToken=…`; `nil` answers the opener
    /// window by `postMessage` instead.
    public var signInCallback: String?
    /// When the token was created, in milliseconds since 1970.
    public var created: Int64

    /// Creates an API token description.
    public init(
        token: String, container: ContainerIdentifier, environment: Environment, name: String, allowedOrigins: [String],
        signInCallback: String?, created: Int64
    ) {
        self.token = token
        self.container = container
        self.environment = environment
        self.name = name
        self.allowedOrigins = allowedOrigins
        self.signInCallback = signInCallback
        self.created = created
    }

    /// Whether a browser page from `origin` may call with this token.
    public func allows(origin: String) -> Bool {
        allowedOrigins.contains("*") || allowedOrigins.contains { $0.caseInsensitiveCompare(origin) == .orderedSame }
    }
}
