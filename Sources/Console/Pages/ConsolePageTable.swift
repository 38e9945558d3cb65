import CloudStore
import HTTPServer

/// Every console page type, once: ``Console/mountPages`` mounts their routes and nothing else
/// under `/console`, and the template renderer refuses to start without their templates. A new
/// page is a type conforming to ``ConsolePageSet`` added here (and, for a tab inside a
/// container, a ``ConsoleSection`` case naming it).
enum ConsolePageTable {
    /// Every page type, in the order mounted: the login pages, the containers, each section's
    /// pages, then the pages outside a container.
    static let pageSets: [any ConsolePageSet.Type] =
        [LoginPage.self, ContainersPages.self] + ConsoleSection.allCases.map(\.pages) + [
            NotificationsPage.self, DeliveryTracePage.self, ManagementTokensPages.self, OperatorsPages.self, AuditPages.self,
            BackupsPages.self,
            HistoryPages.self, ConsoleNotFoundPage.self,
        ]

    /// The templates of pages outside the table: the layout and error page, the start and
    /// sign-in pages, and what every console page shares (its frame, bar and confirmations).
    static let frameworkTemplates = [
        "layout", "error", "start", "signin", "signin-complete", "console.frame", "console.bar", "console.confirm",
        "console.user", "console.access-checks",
    ]

    /// Every template that must load at start.
    static let templates: [String] = frameworkTemplates + pageSets.flatMap { $0.templates }

    /// Every route of the pages, run by `console`, each with what its page type says it needs.
    static func routes(_ console: ConsolePages) -> [ConsoleRoute] {
        pageSets.flatMap { set in
            set.init(console: console).routes.map { route in
                var route = route
                route.needs = (set.needs(route.method), set.needs(.post))
                return route
            }
        }
    }
}

extension ConsoleSection {
    /// The page type of this tab.
    var pages: any ConsolePageSet.Type {
        switch self {
        case .records: RecordsPages.self
        case .zones: ZonesPages.self
        case .sync: SyncPages.self
        case .sharing: SharePages.self
        case .schema: SchemaPages.self
        case .security: SecurityPages.self
        case .users: UsersPages.self
        case .tokens: APITokensPages.self
        case .keys: ServerKeysPages.self
        case .logs: LogsPages.self
        case .usage: UsagePages.self
        case .deploy: DeployPages.self
        case .reset: ResetPages.self
        }
    }
}

// Each page type names the area its pages concern (``OperatorArea``): operators' roles are
// decided by it, GET reading and a post changing, unless the type says otherwise.
extension LoginPage: ConsolePageSet { static let area = OperatorArea.containers }
extension ContainersPages: ConsolePageSet { static let area = OperatorArea.containers }
extension RecordsPages: ConsolePageSet { static let area = OperatorArea.data }
extension ZonesPages: ConsolePageSet { static let area = OperatorArea.data }
extension SyncPages: ConsolePageSet { static let area = OperatorArea.data }
extension NotificationsPage: ConsolePageSet { static let area = OperatorArea.appUsers }
extension DeliveryTracePage: ConsolePageSet { static let area = OperatorArea.appUsers }
extension SharePages: ConsolePageSet { static let area = OperatorArea.appUsers }
extension SchemaPages: ConsolePageSet { static let area = OperatorArea.schema }
extension SecurityPages: ConsolePageSet { static let area = OperatorArea.schema }
extension UsersPages: ConsolePageSet {
    static let area = OperatorArea.appUsers
    /// The container's users are the same in both environments: a change reaches production.
    static func needs(_ method: HTTPMethod) -> OperatorPermission { changingProduction(method) }
}
extension APITokensPages: ConsolePageSet { static let area = OperatorArea.credentials }
extension ServerKeysPages: ConsolePageSet { static let area = OperatorArea.credentials }
extension LogsPages: ConsolePageSet { static let area = OperatorArea.logs }
extension UsagePages: ConsolePageSet { static let area = OperatorArea.usage }
extension DeployPages: ConsolePageSet {
    static let area = OperatorArea.schema
    /// A deploy writes production, whichever environment's page asks.
    static func needs(_ method: HTTPMethod) -> OperatorPermission { changingProduction(method) }
}
extension ResetPages: ConsolePageSet {
    static let area = OperatorArea.data
    /// A reset empties development, whichever environment's page asks.
    static func needs(_ method: HTTPMethod) -> OperatorPermission {
        OperatorPermission(area: area, changesState: method != .get, environment: .development)
    }
}
extension ManagementTokensPages: ConsolePageSet { static let area = OperatorArea.managementTokens }
extension AuditPages: ConsolePageSet { static let area = OperatorArea.logs }
extension OperatorsPages: ConsolePageSet { static let area = OperatorArea.operators }
extension BackupsPages: ConsolePageSet { static let area = OperatorArea.backups }
extension HistoryPages: ConsolePageSet { static let area = OperatorArea.data }
