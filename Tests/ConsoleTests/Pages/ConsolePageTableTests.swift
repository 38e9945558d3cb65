import CloudStore
import Foundation
import HTTPServer
import Logging
import Testing

@testable import Console

/// The console's pages are declared once, in ``ConsolePageTable``: the router serves exactly its
/// routes under `/console`, and the console does not start without any template it declares.
@Suite struct ConsolePageTableTests {
    @Test func everyConsoleRouteServedIsInTheTable() throws {
        let server = try ConsoleTestServer(createContainer: false)
        let configuration = ConsoleConfiguration(templatesDirectory: repositoryTemplates, version: "1")
        let console = ConsolePages(
            pages: PageRenderer(templates: try TemplateRenderer(directory: repositoryTemplates), configuration: configuration),
            authenticator: OperatorAuthenticator(store: server.store, cookies: configuration.cookies),
            actions: ManagementActions(store: server.store), configuration: configuration, logger: Logger(label: "test"))
        let table = ConsolePageTable.routes(console).map { "\($0.method.rawValue) /console\($0.path)" }
        let served = server.routes.filter { $0.pattern == "/console" || $0.pattern.hasPrefix("/console/") }.flatMap { route in
            route.methods.map { "\($0.rawValue) \(route.pattern)" }
        }
        #expect(served == table)
        #expect(Set(table).count == table.count, "a method and path is served by one route")
        for expected in [
            "GET /console", "GET /console/", "POST /console/login", "GET /console/containers/:container/:environment/:database/sync",
            "POST /console/containers/:container/:environment/sharing/delete", "GET /console/containers/:container/:environment/usage",
        ] {
            #expect(table.contains(expected), "\(expected)")
        }
    }

    /// Every tab's page type is in the table, once.
    @Test func everySectionHasItsPagesInTheTable() {
        let names = ConsolePageTable.pageSets.map { "\($0)" }
        #expect(Set(names).count == names.count)
        for section in ConsoleSection.allCases {
            #expect(names.contains("\(section.pages)"), "\(section)")
        }
    }

    /// The templates the newest pages render are checked at start, as every other page's.
    @Test func everyDeclaredTemplateIsRequired() {
        let required = TemplateRenderer.requiredTemplates
        for name in ["console.sync", "console.shares", "console.usage", "console.chart", "console.login", "layout"] {
            #expect(required.contains(name), "\(name)")
        }
        #expect(Set(required).count == required.count)
        for page in ConsolePageTable.pageSets {
            #expect(!page.templates.isEmpty, "\(page)")
            #expect(page.templates.allSatisfy(required.contains), "\(page)")
        }
    }

    /// Taking away any one declared template stops the console at start, naming it.
    @Test func aMissingDeclaredTemplateStopsTheStart() throws {
        let required = TemplateRenderer.requiredTemplates
        for missing in required {
            let folder = try TemplateRendererTests.TemplateFolder(copying: required.filter { $0 != missing })
            #expect(throws: ConsoleError.templateMissing(name: missing, directory: folder.path)) {
                try TemplateRenderer(directory: folder.path)
            }
        }
    }
}
