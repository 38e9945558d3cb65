/// Who is making a request, which decides what they may read and write.
public struct Caller: Hashable, Sendable, CustomStringConvertible {
    /// The kinds of callers.
    public enum Kind: String, Hashable, Sendable {
        /// Anyone, unauthenticated: an API token alone. Reads the public database.
        case world
        /// A signed-in user of the container.
        case user
        /// A server-to-server key: administrator rights in the public database only.
        case server
        /// The operator (command line, console, tests): every database.
        case `operator`
    }

    /// The kind of caller.
    public var kind: Kind
    /// The user record name changes are stamped with; `nil` for the world.
    public var userRecordName: String?
    /// The device changes are stamped with.
    public var deviceID: String

    /// Creates a caller.
    public init(kind: Kind, userRecordName: String?, deviceID: String = "cumulus") {
        self.kind = kind
        self.userRecordName = userRecordName
        self.deviceID = deviceID
    }

    /// An unauthenticated caller.
    public static let world = Caller(kind: .world, userRecordName: nil)

    /// A signed-in user.
    public static func user(_ userRecordName: String, deviceID: String = "cumulus") -> Caller {
        Caller(kind: .user, userRecordName: userRecordName, deviceID: deviceID)
    }

    /// A server-to-server key acting as the given user.
    public static func server(_ userRecordName: String) -> Caller {
        Caller(kind: .server, userRecordName: userRecordName, deviceID: "server")
    }

    /// The operator, stamping changes with the given user record name.
    public static func `operator`(_ userRecordName: String = Caller.operatorRecordName) -> Caller {
        Caller(kind: .operator, userRecordName: userRecordName, deviceID: "cumulus")
    }

    /// The user record name operator changes carry by default.
    public static let operatorRecordName = "_cumulus_operator"

    public var description: String {
        userRecordName.map { "\(kind.rawValue)(\($0))" } ?? kind.rawValue
    }
}
