import CloudKitWire
import CloudStore

/// An app user of a container, with their roles and open sessions.
public struct UserView: ManagementResult, Equatable {
    /// Their user record name.
    public var userRecordName: String
    /// The name they sign in with.
    public var name: String
    /// Their email address, when known.
    public var emailAddress: String?
    /// Their given name, when known.
    public var firstName: String?
    /// Their family name, when known.
    public var lastName: String?
    /// When they were added, in milliseconds since 1970.
    public var created: Int64
    /// Their custom roles in each environment, sorted.
    public var roles: [Environment: [String]]
    /// Their signed-in sessions.
    public var openSessions: Int64
    /// Whether other users may find them.
    public var discoverable: Bool

    init(_ user: AppUser, roles: [Environment: [String]], openSessions: Int) {
        userRecordName = user.userRecordName
        name = user.name
        emailAddress = user.emailAddress
        firstName = user.firstName
        lastName = user.lastName
        created = user.created
        self.roles = roles
        self.openSessions = Int64(openSessions)
        discoverable = user.isDiscoverable
    }

    public var json: JSONValue {
        [
            "userRecordName": .string(userRecordName), "name": .string(name),
            "emailAddress": ManagementActions.optional(emailAddress), "firstName": ManagementActions.optional(firstName),
            "lastName": ManagementActions.optional(lastName), "created": .integer(created),
            "roles": .object(
                JSONObject(
                    Environment.allCases.map { environment in
                        (environment.rawValue, JSONValue.array((roles[environment] ?? []).map(JSONValue.string)))
                    })),
            "openSessions": .integer(openSessions), "discoverable": .bool(discoverable),
        ]
    }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        userRecordName = try fields.string("userRecordName")
        name = try fields.string("name")
        emailAddress = try fields.optionalString("emailAddress")
        firstName = try fields.optionalString("firstName")
        lastName = try fields.optionalString("lastName")
        created = try fields.int64("created")
        let held = try AnswerFields(try fields.value("roles"))
        var roles: [Environment: [String]] = [:]
        for environment in Environment.allCases { roles[environment] = try held.strings(environment.rawValue) }
        self.roles = roles
        openSessions = try fields.int64("openSessions")
        discoverable = try fields.bool("discoverable")
    }
}

/// A container's app users.
public struct UsersView: ManagementResult, Equatable {
    /// The users, by name.
    public var users: [UserView]

    init(_ users: [UserView]) { self.users = users }

    public var json: JSONValue { ["users": .array(users.map(\.json))] }

    public init(json: JSONValue) throws { users = try AnswerFields(json).array("users", UserView.init(json:)) }
}

/// A user removed.
public struct UserRemoval: ManagementResult, Equatable {
    /// Their user record name.
    public var removed: String

    init(removed: String) { self.removed = removed }

    public var json: JSONValue { ["removed": .string(removed)] }

    public init(json: JSONValue) throws { removed = try AnswerFields(json).string("removed") }
}

/// A user signed out everywhere.
public struct SignOutOutcome: ManagementResult, Equatable {
    /// Their user record name.
    public var userRecordName: String
    /// The sessions ended.
    public var endedSessions: Int64

    init(userRecordName: String, endedSessions: Int) {
        self.userRecordName = userRecordName
        self.endedSessions = Int64(endedSessions)
    }

    public var json: JSONValue { ["userRecordName": .string(userRecordName), "endedSessions": .integer(endedSessions)] }

    public init(json: JSONValue) throws {
        let fields = try AnswerFields(json)
        userRecordName = try fields.string("userRecordName")
        endedSessions = try fields.int64("endedSessions")
    }
}
