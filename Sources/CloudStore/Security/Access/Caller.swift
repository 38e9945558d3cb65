/// Who is making a request, which decides what they may read and write. Each case carries the
/// identity it acts with, so "which user is this?" is answered here and nowhere else.
public enum Caller: Hashable, Sendable, CustomStringConvertible {
    /// Anyone, unauthenticated: an API token alone. Reads what `_world` may read; writes nothing.
    case world
    /// A signed-in user of the container, on a device.
    case user(_ userRecordName: String, deviceID: String = "cumulus")
    /// A server-to-server key, acting as the key's own user: administrator of the public
    /// database, nothing else.
    case server(_ userRecordName: String)
    /// The operator (command line, console, management API): every database. Changes are
    /// stamped with `userRecordName`.
    case `operator`(_ userRecordName: String = Caller.operatorRecordName)

    /// The user record name operator changes carry by default.
    public static let operatorRecordName = "_cumulus_operator"

    /// The user record name changes are stamped with; `nil` for the world.
    public var userRecordName: String? {
        switch self {
        case .world: nil
        case .user(let name, _), .server(let name), .operator(let name): name
        }
    }

    /// The signed-in app user, when the caller is one: the user whose private database, roles
    /// and created records count.
    public var signedInUser: String? {
        if case .user(let name, _) = self { return name }
        return nil
    }

    /// Whether the caller is the unauthenticated world.
    public var isWorld: Bool { self == .world }

    /// The device changes are stamped with.
    public var deviceID: String {
        switch self {
        case .world, .operator: "cumulus"
        case .user(_, let device): device
        case .server: "server"
        }
    }

    /// `world`, `user(_abc…)`, `server(_abc…)` or `operator(_cumulus_operator)`.
    public var description: String {
        switch self {
        case .world: "world"
        case .user(let name, _): "user(\(name))"
        case .server(let name): "server(\(name))"
        case .operator(let name): "operator(\(name))"
        }
    }
}
