import CloudKitWire
import CloudStore

/// An API token, as the console lists it and the API answers it.
public struct APITokenView: ManagementResult, Equatable {
    /// The token itself.
    public var token: String
    /// The environment it works in.
    public var environment: Environment
    /// Its label.
    public var name: String
    /// The origins that may call with it.
    public var allowedOrigins: [String]
    /// Where sign-in returns; `nil` for `postMessage`.
    public var signInCallback: String?
    /// When it was made, in milliseconds since 1970.
    public var created: Int64

    init(_ token: APIToken) {
        self.token = token.token
        environment = token.environment
        name = token.name
        allowedOrigins = token.allowedOrigins
        signInCallback = token.signInCallback
        created = token.created
    }

    public var json: JSONValue {
        [
            "token": .string(token), "environment": .string(environment.rawValue), "name": .string(name),
            "allowedOrigins": .array(allowedOrigins.map(JSONValue.string)),
            "signInCallback": ManagementActions.optional(signInCallback), "created": .integer(created),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        token = try fields.string("token")
        environment = try fields.environment("environment")
        name = try fields.string("name")
        allowedOrigins = try fields.strings("allowedOrigins")
        signInCallback = try fields.optionalString("signInCallback")
        created = try fields.int64("created")
    }
}

/// A container's API tokens.
public struct APITokensView: ManagementResult, Equatable {
    /// The tokens.
    public var tokens: [APITokenView]

    init(_ tokens: [APITokenView]) { self.tokens = tokens }

    public var json: JSONValue { ["tokens": .array(tokens.map(\.json))] }

    public init(json: JSONValue) throws { tokens = try AnswerFields(json).array("tokens", APITokenView.init(json:)) }
}

/// A server-to-server key, by its fingerprint (never its PEM).
public struct ServerKeyView: ManagementResult, Equatable {
    /// The key ID requests name.
    public var keyID: String
    /// The environment it works in.
    public var environment: Environment
    /// Its label.
    public var name: String
    /// The public key's fingerprint.
    public var fingerprint: String
    /// The user its requests act as.
    public var userRecordName: String
    /// When it was added, in milliseconds since 1970.
    public var created: Int64

    init(_ key: ServerKey) {
        keyID = key.keyID
        environment = key.environment
        name = key.name
        fingerprint = key.fingerprint
        userRecordName = key.userRecordName
        created = key.created
    }

    public var json: JSONValue {
        [
            "keyID": .string(keyID), "environment": .string(environment.rawValue), "name": .string(name),
            "fingerprint": .string(fingerprint), "userRecordName": .string(userRecordName), "created": .integer(created),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        keyID = try fields.string("keyID")
        environment = try fields.environment("environment")
        name = try fields.string("name")
        fingerprint = try fields.string("fingerprint")
        userRecordName = try fields.string("userRecordName")
        created = try fields.int64("created")
    }
}

/// A container's server-to-server keys.
public struct ServerKeysView: ManagementResult, Equatable {
    /// The keys.
    public var keys: [ServerKeyView]

    init(_ keys: [ServerKeyView]) { self.keys = keys }

    public var json: JSONValue { ["keys": .array(keys.map(\.json))] }

    public init(json: JSONValue) throws { keys = try AnswerFields(json).array("keys", ServerKeyView.init(json:)) }
}
