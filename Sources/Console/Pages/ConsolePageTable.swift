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
            NotificationsPage.self, ManagementTokensPages.self, AuditPages.self, BackupsPages.self, ConsoleNotFoundPage.self,
        ]

    /// The templates of pages outside the table: the layout and error page, the start and
    /// sign-in pages, and what every console page shares (its frame, bar and confirmations).
    static let frameworkTemplates = [
        "layout", "error", "start", "signin", "signin-complete", "console.frame", "console.bar", "console.confirm",
        "console.user",
    ]

    /// Every template that must load at start.
    static let templates: [String] = frameworkTemplates + pageSets.flatMap { $0.templates }

    /// Every route of the pages, run by `console`.
    static func routes(_ console: ConsolePages) -> [ConsoleRoute] {
        pageSets.flatMap { $0.init(console: console).routes }
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

extension LoginPage: ConsolePageSet {}
extension ContainersPages: ConsolePageSet {}
extension RecordsPages: ConsolePageSet {}
extension ZonesPages: ConsolePageSet {}
extension SyncPages: ConsolePageSet {}
extension NotificationsPage: ConsolePageSet {}
extension SharePages: ConsolePageSet {}
extension SchemaPages: ConsolePageSet {}
extension SecurityPages: ConsolePageSet {}
extension UsersPages: ConsolePageSet {}
extension APITokensPages: ConsolePageSet {}
extension ServerKeysPages: ConsolePageSet {}
extension LogsPages: ConsolePageSet {}
extension UsagePages: ConsolePageSet {}
extension DeployPages: ConsolePageSet {}
extension ResetPages: ConsolePageSet {}
extension ManagementTokensPages: ConsolePageSet {}
extension AuditPages: ConsolePageSet {}
extension BackupsPages: ConsolePageSet {}
