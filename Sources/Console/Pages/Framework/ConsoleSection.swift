/// The pages inside a container, in the order of its tabs. A new tab adds a case here naming
/// its page type (``pages``, whose routes and templates ``ConsolePageTable`` mounts and checks):
/// the frame and the bar pick it up.
enum ConsoleSection: String, CaseIterable {
    case records, zones, sync, sharing, schema, security, users, tokens, keys, logs, usage, deploy, reset

    /// The tab's label.
    var title: String {
        switch self {
        case .records: "Records"
        case .zones: "Zones"
        case .sync: "Sync"
        case .sharing: "Sharing"
        case .schema: "Schema"
        case .security: "Security"
        case .users: "Users"
        case .tokens: "API tokens"
        case .keys: "Server keys"
        case .logs: "Logs"
        case .usage: "Usage"
        case .deploy: "Deploy"
        case .reset: "Reset"
        }
    }

    /// Whether the page depends on the database (public, private, shared) as well as the environment.
    var usesDatabase: Bool { self == .records || self == .zones || self == .sync }
    /// Whether the page shows the same in both environments (the container's users), so the bar
    /// offers no environment switch.
    var isContainerWide: Bool { self == .users }
    /// Whether the page depends on the zone.
    var usesZone: Bool { self == .records || self == .sync }
}
