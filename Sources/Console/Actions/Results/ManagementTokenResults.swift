import CloudKitWire
import CloudStore

/// A management token (its secret only in the answer that created it).
public struct ManagementTokenView: ManagementResult, Equatable {
    /// Its ID.
    public var id: String
    /// The operator it acts as.
    public var operatorName: String
    /// Its label.
    public var name: String
    /// When it was made, in milliseconds since 1970.
    public var created: Int64
    /// When it was last used; `nil` when never.
    public var lastUsed: Int64?
    /// The token itself: in the creation's answer and nowhere else, ever.
    public var secret: String?

    init(_ token: ManagementToken, secret: String? = nil) {
        id = token.id
        operatorName = token.operatorName
        name = token.name
        created = token.created
        lastUsed = token.lastUsed
        self.secret = secret
    }

    public var json: JSONValue {
        var object: JSONObject = [
            "id": .string(id), "operator": .string(operatorName), "name": .string(name), "created": .integer(created),
            "lastUsed": lastUsed.map(JSONValue.integer) ?? .null,
        ]
        if let secret { object["token"] = .string(secret) }
        return .object(object)
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        id = try fields.string("id")
        operatorName = try fields.string("operator")
        name = try fields.string("name")
        created = try fields.int64("created")
        lastUsed = try fields.optionalInt64("lastUsed")
        secret = try fields.optionalString("token")
    }
}

/// Every unrevoked management token.
public struct ManagementTokensView: ManagementResult, Equatable {
    /// The tokens.
    public var managementTokens: [ManagementTokenView]

    init(_ tokens: [ManagementTokenView]) { managementTokens = tokens }

    public var json: JSONValue { ["managementTokens": .array(managementTokens.map(\.json))] }

    public init(json: JSONValue) throws {
        managementTokens = try AnswerFields(json).array("managementTokens", ManagementTokenView.init(json:))
    }
}

/// A management token revoked.
public struct ManagementTokenRevocation: ManagementResult, Equatable {
    /// The token's ID.
    public var id: String

    init(id: String) { self.id = id }

    public var json: JSONValue { ["id": .string(id), "revoked": true] }

    public init(json: JSONValue) throws { id = try AnswerFields(json).string("id") }
}
